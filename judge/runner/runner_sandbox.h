/*
 * runner_sandbox.h - the runner's confinement policy: which of the sandbox.h
 * primitives blockwise-runner applies, with which values, in which order.
 * Each step fails with BW_ERR_SANDBOX and a message that names the system call.
 *
 * blockwise-runner calls them in this order (docs/runner-protocol.md, Start):
 *   runner_sandbox_process()    die with the parent, own session, only fds 0-3
 *   runner_sandbox_rlimits()    no core files, bounded file sizes and fds
 *   runner_sandbox_namespaces() new user, mount and network namespaces; every
 *                               mount read-only but /proc; no network but a
 *                               down loopback
 *   (CUDA comes up here: the driver needs files and threads first; then,
 *   with --cupti, CUPTI's profiler: cupti.h)
 *   runner_sandbox_seccomp()    a deny-list syscall filter on every thread
 * With --no-sandbox only the first two run. The steps are also called by the
 * unit tests in forked children, which check what each one forbids. The
 * compile child's policy, stricter because NVRTC needs no device, is in
 * compile_main.c; docs/sandbox.md says why they differ.
 */
#ifndef BW_RUNNER_SANDBOX_H
#define BW_RUNNER_SANDBOX_H

/* SIGKILL on the parent's death, a new session, and every descriptor above
 * `keep_max_fd` closed. */
int runner_sandbox_process(int keep_max_fd, char **cause);

/* RLIMIT_CORE 0, RLIMIT_FSIZE BW_MAX_RETURN_BYTES (memfds count against it),
 * RLIMIT_NOFILE BW_RUNNER_NOFILE. Never RLIMIT_AS: the driver reserves huge
 * virtual ranges. Not sandbox_not_dumpable(): that is the compile child's
 * policy only. */
int runner_sandbox_rlimits(char **cause);

/* New user (the caller's uid and gid mapped), mount and network namespaces,
 * then every mount remounted read-only (device nodes stay usable: a read-only
 * mount does not stop writes to a device) except /proc, which the driver
 * writes thread names to; /proc/sys, /proc/sysrq-trigger, /proc/irq,
 * /proc/bus and /proc/fs are made read-only instead. Must run while the
 * process has one thread. */
int runner_sandbox_namespaces(char **cause);

/*
 * Installs the seccomp filter on every thread (TSYNC). Forbidden calls fail
 * with EPERM rather than killing, so a driver path we did not foresee fails
 * visibly instead of crashing: execve/execveat, fork/vfork and clone without
 * CLONE_THREAD (clone3 gets ENOSYS so glibc falls back to clone, whose flags
 * seccomp can see), sockets other than AF_UNIX, connect/bind/listen, ptrace
 * and process_vm_*, mount and namespace calls, bpf, perf_event_open, keyctl,
 * io_uring, userfaultfd, signals and rlimits aimed at other processes
 * (openat2 gets ENOSYS). Opens are not filtered: seccomp cannot read paths,
 * and the driver opens /proc files for writing (fopen "w" sets O_CREAT), so
 * the read-only mounts of runner_sandbox_namespaces() are what stop writes.
 */
int runner_sandbox_seccomp(char **cause);

#endif
