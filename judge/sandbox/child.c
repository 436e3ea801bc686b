/*
 * child.c - the set-up steps every sandboxed child shares (child.h).
 */
#include "child.h"

#include <stdlib.h>
#include <unistd.h>

#include "sandbox.h"
#include "sandbox_job.h"
#include "common/error.h"
#include "common/banned.h"

void sandbox_child_setup(struct sandbox_child *c, const struct sandbox_step *steps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *cause = NULL;
        int rc;
        if (steps[i].isolation && !c->sandbox)
            continue;
        if ((rc = steps[i].run(c, &cause))) {
            c->fail(steps[i].name, rc, cause);
            _exit(3); /* fail does not return; a half-built sandbox must never go on */
        }
        free(cause);
    }
}

int sandbox_step_die_with_parent(struct sandbox_child *c, char **cause)
{
    return sandbox_die_with_parent(c->parent, cause);
}

int sandbox_step_new_session(struct sandbox_child *c, char **cause)
{
    (void)c;
    return sandbox_new_session(cause);
}

int sandbox_step_close_fds(struct sandbox_child *c, char **cause)
{
    (void)c;
    return sandbox_close_fds(SANDBOX_FD_RESULT + 1, cause);
}

int sandbox_step_enter_pid_namespace(struct sandbox_child *c, char **cause)
{
    (void)c;
    return sandbox_enter_pid_namespace(cause);
}

int sandbox_step_drop_privileges(struct sandbox_child *c, char **cause)
{
    (void)c;
    return sandbox_drop_privileges(cause);
}
