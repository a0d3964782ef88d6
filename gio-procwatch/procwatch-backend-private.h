/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * How an exit is detected: a backend opens a kernel handle that pins one
 * process (so a reused pid can never be mistaken for it), tells which epoll
 * events announce its next state, reads its state and its wait status, and
 * closes it. Backends know nothing of GObject signals or main loops.
 */

#pragma once

#include <glib.h>
#include <sys/wait.h>

#include "procwatch-handle-private.h"
#include "procwatch-types.h"

G_BEGIN_DECLS

/* What a watch keeps of its process as it was when watching started
 * (procwatch_handle_read_identity ()). */
typedef struct
{
  /* Valid UTF-8, in @name_buffer or @name_heap; NULL if not known. */
  const char *name;
  char *name_heap;
  /* A hold on the shared cgroup v2 path (procwatch-shared-string.c), for
   * the process object to take; NULL if not known. */
  const char *cgroup;
  char name_buffer[64];
} ProcwatchIdentity;

/* A monitor's /proc fd (procwatch_handle_read_identity ()'s @proc_fd):
 * not opened yet, or /proc is not one of our pid namespace. */
#define PROCWATCH_PROC_FD_UNKNOWN (-1)
#define PROCWATCH_PROC_FD_NOT_OWN (-2)

/* read_state()'s @revents for a probe of a process seen exited already:
 * a bit epoll never reports (EPOLLET). */
#define PROCWATCH_PROBE_EXITED (1u << 31)

struct _ProcwatchBackend
{
  const char *name;

  /* Whether this kernel supports the backend; @error says why not. Called
   * once per process. */
  gboolean (*is_supported) (GError **error);

  /* Whether handle fds can be added to epoll; if not, every change of state
   * is found by probing. */
  gboolean handles_pollable;

  /* Whether a handle's fd is a pidfd (else its pidfd, if any, is kept
   * beside). */
  gboolean handle_fd_is_pidfd;

  /* Bounds of the probing backoff, in microseconds. */
  gint64 probe_min_interval;
  gint64 probe_max_interval;
  /* A process that has just entered a state it leaves unannounced is probed
   * every young interval during the young period, then backs off (see
   * procwatch-probe-scheduler.c); a young period of 0: backoff only. */
  gint64 probe_young_interval;
  gint64 probe_young_period;

  gboolean              (*open_pid)     (const ProcwatchBackend *backend,
                                         GPid                    pid,
                                         ProcwatchHandle        *handle,
                                         GError                **error);
  gboolean              (*open_pidfd)   (const ProcwatchBackend *backend,
                                         int                     pidfd,
                                         ProcwatchHandle        *handle,
                                         GError                **error);
  /* The epoll events to wait for while the process is in @state (EPOLLHUP
   * and EPOLLERR are always reported). */
  guint32               (*events_for)   (const ProcwatchBackend *backend,
                                         ProcwatchProcessState   state);
  /* Whether leaving @state can only be noticed by probing, on a timer. */
  gboolean              (*needs_probe)  (const ProcwatchBackend *backend,
                                         ProcwatchProcessState   state);
  /* The state given the epoll events @revents seen on the handle; with
   * @revents 0 or PROCWATCH_PROBE_EXITED the backend looks for itself (a
   * probe; of a process known to have exited, with the latter). */
  ProcwatchProcessState (*read_state)   (const ProcwatchBackend *backend,
                                         const ProcwatchHandle  *handle,
                                         guint32                 revents);
  /* The wait status, if the kernel tells it to us in @state. */
  gboolean              (*read_status)  (const ProcwatchBackend *backend,
                                         const ProcwatchHandle  *handle,
                                         ProcwatchProcessState   state,
                                         int                    *wait_status);
  /* What a monitor on this backend delivers on this kernel, found without
   * starting a process (see ProcwatchProcessMonitor:features). */
  ProcwatchFeatures     (*probe_features) (const ProcwatchBackend *backend);
};

/* The registry (procwatch-backend.c). */
const ProcwatchBackend *procwatch_backend_get_default  (void);
const ProcwatchBackend *procwatch_backend_choose       (const char             *forced);
ProcwatchFeatures       procwatch_backend_probe_features (const ProcwatchBackend *backend);

/* What every backend does alike with what its handles pin
 * (procwatch-backend.c). */
gboolean                procwatch_backend_same_process (const ProcwatchBackend *backend,
                                                        const ProcwatchHandle  *older,
                                                        const ProcwatchHandle  *newer);
void                    procwatch_handle_read_identity (const ProcwatchBackend *backend,
                                                        ProcwatchHandle        *handle,
                                                        int                    *proc_fd,
                                                        ProcwatchIdentity      *identity);
void                    procwatch_identity_clear       (ProcwatchIdentity      *identity);

/* pidfd helpers (procwatch-backend-pidfd.c) that the backends holding /proc
 * handles need too, to accept a pidfd and to read a child's status;
 * procwatch_pidfd_get_info () is the one caller of PIDFD_GET_INFO. */
struct procwatch_pidfd_info;
gboolean                procwatch_pidfd_get_info       (int                     pidfd,
                                                        guint64                 mask,
                                                        struct procwatch_pidfd_info *info);
int                     procwatch_pidfd_dup            (int                     pidfd,
                                                        GPid                   *pid,
                                                        guint64                *inode,
                                                        GError                **error);
guint64                 procwatch_pidfd_inode_of_pid   (GPid                    pid);
gboolean                procwatch_pidfd_pidfs_hidden   (void);
gboolean                procwatch_pidfd_read_exit_status (int                   pidfd,
                                                        int                    *wait_status);
gboolean                procwatch_pidfd_is_reaped      (int                     pidfd);
gboolean                procwatch_pidfd_check_watched  (int                     pidfd,
                                                        GPid                    pid,
                                                        gboolean               *child,
                                                        guint64                *cgroup_id);
gint                    procwatch_pidfd_tells_cgroup_id (void);
gboolean                procwatch_read_child_status    (const ProcwatchBackend *backend,
                                                        const ProcwatchHandle  *handle,
                                                        idtype_t                idtype,
                                                        int                    *wait_status);

extern const ProcwatchBackend procwatch_backend_pidfd;
extern const ProcwatchBackend procwatch_backend_procfs;
extern const ProcwatchBackend procwatch_backend_poll;

/* The procfs backend's decisions, apart so that they can be tested on
 * kernels without pollable /proc directories. */
gboolean                procwatch_procfs_supported_by  (short                   proc_self_revents);
ProcwatchProcessState   procwatch_procfs_state_from_revents (guint32            revents);

G_END_DECLS
