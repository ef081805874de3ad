/* scen_emb.h - a scenario's embedding tables: <embedding> children of <model>, the ID
 * distribution of a recommendation preset's tables (<model ids zipf>), and the sparse parameter
 * server's <ps sparse shard-by cache-rows cache-staleness>. */
#ifndef DMLSIM_SCEN_EMB_H
#define DMLSIM_SCEN_EMB_H

#include "attr.h"
#include "scenario_types.h"

/* <model ids zipf>: into ms->gpt.ids and ms->gpt.zipf (only with a recommendation preset). */
enum dmlsim_err scen_emb_read_model(struct reader *r, xmlNodePtr n, struct model_spec *ms);

/* One <embedding name rows dim pooling ids zipf file>: a table appended to ms->explicit_ (an ID
 * file is read here, owned by ms). */
enum dmlsim_err scen_emb_read_table(struct reader *r, xmlNodePtr n, struct model_spec *ms);

/* <ps sparse shard-by cache-rows cache-staleness> into ps. */
enum dmlsim_err scen_emb_read_ps(struct reader *r, xmlNodePtr n, struct ps_spec *ps);

/* What needs the whole scenario: <ps>'s sparse attributes need a model with tables, and
 * dense="allreduce" no <faults>. */
enum dmlsim_err scen_emb_check(struct reader *r, const struct scenario *sc);

/* Are a model's embedding tables on every GPU? Not with the parameter server's sparse path (the
 * shards hold them; a GPU holds the rows its batch pulled). */
bool scen_emb_tables_on_gpu(const struct train_spec *ts);

/* Frees what scen_emb_read_table allocated in ms. */
void scen_emb_release(struct model_spec *ms);

#endif
