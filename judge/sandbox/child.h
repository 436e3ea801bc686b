/*
 * child.h - how a sandboxed compile child sets itself up: one linear list of
 * named steps, run in order, the first failure ending the child (the contest
 * sandboxes' shape). Each child (blockwise-compile, blockwise-triton-compile)
 * writes its own list; the steps every child takes the same way, and the loop
 * that runs a list, are here.
 *
 * A child's own state embeds struct sandbox_child as its first member, so a
 * step receives the common part and the child's steps recover their own
 * (child.c's steps read only the common part).
 */
#ifndef BW_SANDBOX_CHILD_H
#define BW_SANDBOX_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What every sandboxed child knows of itself: the first member of its state. */
struct sandbox_child {
    pid_t parent; /* the judge: the child dies with it */
    bool sandbox; /* false (--no-sandbox): the isolation steps are skipped */
    /* Reports a failed step to the judge and ends the child (the child's own answer format). */
    void (*fail)(const char *step, int code, const char *cause); /* must not return */
};

struct sandbox_step {
    const char *name; /* reported with a failure: "unshare namespaces" */
    int (*run)(struct sandbox_child *c, char **cause);
    bool isolation; /* skipped when !c->sandbox */
};

/*
 * Runs steps[0..n) in order, skipping isolation steps without a sandbox.
 * Returns once every step passed; the first failing step goes to c->fail,
 * which ends the child.
 */
void sandbox_child_setup(struct sandbox_child *c, const struct sandbox_step *steps, size_t n);

/* The steps every child takes alike. */
int sandbox_step_die_with_parent(struct sandbox_child *c, char **cause);
int sandbox_step_new_session(struct sandbox_child *c, char **cause);
/* Closes every fd past the request and result pipes (sandbox.h's layout). */
int sandbox_step_close_fds(struct sandbox_child *c, char **cause);
int sandbox_step_enter_pid_namespace(struct sandbox_child *c, char **cause);
int sandbox_step_drop_privileges(struct sandbox_child *c, char **cause);

#endif
