#include "runner_sandbox.h"

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "judge/sandbox/sandbox.h"
#include "common/banned.h"

int runner_sandbox_process(int keep_max_fd, char **cause)
{
    int rc;

    /* judged is checked by spawn.h before exec; the death signal survives exec. */
    if ((rc = sandbox_die_with_parent(0, cause)) || (rc = sandbox_new_session(cause)))
        return rc;
    return sandbox_close_fds(keep_max_fd + 1, cause);
}

int runner_sandbox_rlimits(char **cause)
{
    const struct sandbox_limits limits = {
        .fsize_bytes = (rlim_t)BW_MAX_RETURN_BYTES,
        .nofile = BW_RUNNER_NOFILE,
    };

    return sandbox_set_rlimits(&limits, cause);
}

/*
 * /proc stays writable: NVIDIA drivers from 570 on write their threads' names
 * to /proc/self/task/TID/comm during cuInit and treat a refusal as a fatal
 * "operating system" error (CUDA error 304; seen on the H200 machine with
 * driver 580, scripts/diag/cuinit-ro.sh shows it). What in /proc reaches
 * beyond this process is made read-only instead.
 */
static const char *const proc_readonly[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                            "/proc/bus", "/proc/fs"};

int runner_sandbox_namespaces(char **cause)
{
    int rc;

    rc = sandbox_unshare(SANDBOX_NS_MOUNT | SANDBOX_NS_NET, cause);
    if (rc && cause && *cause && strncmp(*cause, "unshare(", 8) == 0) {
        char *why = *cause;
        *cause = NULL;
        bw_fail(cause, rc,
                "%s (unprivileged user namespaces must be allowed, or run with --no-sandbox)", why);
        free(why);
    }
    if (rc)
        return rc;
    if ((rc = sandbox_private_mounts(cause)) || (rc = sandbox_remount_readonly("proc", cause)))
        return rc;
    for (size_t i = 0; i < sizeof(proc_readonly) / sizeof(proc_readonly[0]); i++)
        if ((rc = sandbox_bind_readonly(proc_readonly[i], cause)))
            return rc;
    return BW_OK;
}

int runner_sandbox_seccomp(char **cause)
{
    const uint32_t self = (uint32_t)getpid();
    const struct sandbox_rule rules[] = {
        {"execve", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"execveat", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"fork", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"vfork", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"clone", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)}},
        {"clone3", SANDBOX_FAIL, ENOSYS, 0, {{0}}},
        {"socket", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, AF_UNIX)}},
        {"connect", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"bind", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"listen", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"ptrace", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"process_vm_readv", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"process_vm_writev", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"kcmp", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"mount", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"umount2", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"pivot_root", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"chroot", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"open_tree", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"move_mount", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"fsopen", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"fsconfig", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"fsmount", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"fspick", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"mount_setattr", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"unshare", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"setns", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"bpf", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"perf_event_open", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"keyctl", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"add_key", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"request_key", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"io_uring_setup", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"io_uring_enter", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"io_uring_register", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"userfaultfd", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"pidfd_open", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"pidfd_send_signal", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"pidfd_getfd", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"kill", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, self)}},
        {"tgkill", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, self)}},
        {"tkill", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"rt_sigqueueinfo", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, self)}},
        {"rt_tgsigqueueinfo", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, self)}},
        {"prlimit64", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, 0)}},
        {"move_pages", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, 0)}},
        {"migrate_pages", SANDBOX_FAIL, EPERM, 1, {SCMP_A0_32(SCMP_CMP_NE, 0)}},
        {"openat2", SANDBOX_FAIL, ENOSYS, 0, {{0}}},
        {"name_to_handle_at", SANDBOX_FAIL, EPERM, 0, {{0}}},
        {"open_by_handle_at", SANDBOX_FAIL, EPERM, 0, {{0}}},
    };
    const struct sandbox_filter filter = {
        .fallback = SANDBOX_ALLOW,
        .all_threads = true, /* the driver has started threads */
        .rules = rules,
        .n_rules = sizeof(rules) / sizeof(rules[0]),
    };

    return sandbox_seccomp_load(&filter, cause);
}
