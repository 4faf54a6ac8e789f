/*
 * json_seed.h: a seed as JSON, for every writer of one (json.c's run,
 * history_out.c's history).  Needs jansson.h first.
 */
#ifndef SB_REPORT_JSON_SEED_H
#define SB_REPORT_JSON_SEED_H

#include <stdint.h>

/* The seed losslessly: jansson's integers are signed 64-bit, so a seed
 * above INT64_MAX is the string of its decimal digits (a JSON number
 * would wrap to a negative value), as docs/schema.md says of meta.seed. */
json_t *sb__json_seed(uint64_t seed);

#endif
