/*
 * report.h - a judge result shown: the table `judged check` prints for
 * people, and the JSON that `judged check --json` prints and the worker sends
 * to the server. Both forms live here, beside each other, so that a field
 * added to struct judge_result is shown by both.
 */
#ifndef BW_REPORT_H
#define BW_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "judge_config.h"
#include "judging.h"
#include "problem/problem.h"

/* The whole result as JSON (a *new* reference): verdict, verdict_name, message,
 * mode ("run", "submit" or "profile"), executed, diagnostics, compile_log, kernels,
 * tests, benches, score, goals, gpu (gpu_info_json), compile_ms, total_ms,
 * timing, seed (16 hex digits); a Profile's "profile" too (docs/profile.md). */
json_t *judge_result_json(const struct judge_result *r);

/* Prints the result as a readable report. `color` adds ANSI colours. */
void report_print(FILE *f, const struct problem *p, const char *file, const struct judge_result *r,
                  bool color);

/* Prints the calibration figures of a GPU, one per line. */
void report_print_gpu(FILE *f, const struct gpu_info *g);

/* Prints one progress event as a short line (for `judged check --progress`). */
void report_print_event(FILE *f, json_t *event);

#endif
