/*
 * report.h - a judge result for people: the table `judged check` prints.
 *
 * The JSON form (judge_result_json, declared in judge.h) is implemented here
 * too, so that both forms are written from one walk of struct judge_result
 * and cannot drift apart.
 */
#ifndef BW_REPORT_H
#define BW_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/problem.h"
#include "judge.h"

/* Prints the result as a readable report. `color` adds ANSI colours. */
void report_print(FILE *f, const struct problem *p, const char *file, const struct judge_result *r,
                  bool color);

/* Prints the calibration figures of a GPU, one per line. */
void report_print_gpu(FILE *f, const struct gpu_info *g);

/* Prints one progress event as a short line (for `judged check --progress`). */
void report_print_event(FILE *f, json_t *event);

#endif
