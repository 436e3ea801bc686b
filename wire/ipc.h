/*
 * ipc.h - framed JSON messages between judged and its children, with an
 * optional file descriptor, and the memfd helpers that carry bulk bytes.
 *
 * A frame is a little-endian uint32 byte count followed by that many bytes of
 * UTF-8 JSON, one object, at most BW_MAX_MESSAGE_BYTES. A frame may carry one
 * file descriptor (SCM_RIGHTS) attached to its length prefix; the receiver
 * says whether it accepts one. Every violation - a truncated frame, a zero or
 * oversize length, invalid JSON, a non-object, an fd where none is expected,
 * an fd attached to the body, more than one fd - is BW_ERR_PROTOCOL with a
 * message naming what was wrong. A clean end of stream before a frame starts
 * is BW_ERR_IO ("peer closed the connection"), so a reader can tell a peer that
 * exited between messages from one that broke the protocol.
 *
 * Deadlines are absolute times on the now_ns() clock (util.h), or
 * IPC_NO_DEADLINE; passing one is BW_ERR_TIMEOUT. Sends never raise SIGPIPE
 * (a closed peer is BW_ERR_IO) and continue partial writes until the whole
 * frame is out or the deadline passes.
 *
 * Bulk data (a cubin, outputs, gather indices) travels in a memfd whose layout
 * the JSON describes. The sender seals it (no write, grow or shrink) before
 * sending, so the receiver can map it without the sender changing it under it
 * or shrinking it to raise SIGBUS in the reader; ipc_memfd_map_sealed()
 * refuses a memfd that is not sealed.
 */
#ifndef BW_IPC_H
#define BW_IPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPC_NO_DEADLINE 0

/* An absolute deadline `ms` milliseconds from now (ms < 0: IPC_NO_DEADLINE). */
uint64_t ipc_deadline_in(int64_t ms);

/* Sends msg (borrowed) as one frame, with `fd` attached if fd >= 0 (the fd
 * stays open in the caller). */
int ipc_send(int sock, const json_t *msg, int fd, uint64_t deadline, char **cause);

/* Sends `len` bytes of already-encoded JSON as one frame (as ipc_send). */
int ipc_send_text(int sock, const char *text, size_t len, int fd, uint64_t deadline, char **cause);

/*
 * Receives one frame into *msg (*new* reference). With fd == NULL an attached
 * descriptor is a protocol error (it is closed); otherwise *fd is the received
 * descriptor (*new*, close-on-exec) or -1. On failure *msg is NULL and *fd -1.
 */
int ipc_recv(int sock, uint64_t deadline, json_t **msg, int *fd, char **cause);

/* A new memfd named `name` of `size` bytes (zero-filled), close-on-exec,
 * sealable; *fd is *new*. */
int ipc_memfd_create(const char *name, size_t size, int *fd, char **cause);

/* Maps the whole memfd read-write (shared); *addr is NULL when the size is 0.
 * Undo with ipc_unmap(). */
int ipc_memfd_map(int fd, void **addr, size_t *size, char **cause);

/* Seals the memfd against writes, growth and shrinking (and further seals).
 * Every writable mapping of it must have been unmapped. */
int ipc_memfd_seal(int fd, char **cause);

/* Seals the memfd's size (growth, shrinking and further seals) but not its
 * contents: a buffer one side lends the other to write into, which neither
 * can resize under the other's mapping (SIGBUS). */
int ipc_memfd_seal_size(int fd, char **cause);

/* Maps a lent memfd received from a peer read-write (shared), after checking
 * that its size is sealed; *addr is NULL when empty. */
int ipc_memfd_map_lent(int fd, void **addr, size_t *size, char **cause);

/* Maps a memfd received from a peer, read-only, after checking that it is a
 * sealed memfd (write, grow and shrink seals); *addr is NULL when empty. */
int ipc_memfd_map_sealed(int fd, const void **addr, size_t *size, char **cause);

/* A sealed memfd holding a copy of `len` bytes at data; *fd is *new*. */
int ipc_memfd_from_bytes(const char *name, const void *data, size_t len, int *fd, char **cause);

/* Unmaps what ipc_memfd_map*() mapped (addr may be NULL). */
void ipc_unmap(const void *addr, size_t size);

#endif
