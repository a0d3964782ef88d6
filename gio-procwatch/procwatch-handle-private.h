/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * A backend's handle: the kernel object that pins one watched process (a
 * pidfd, or a /proc entry, procwatch-proc-entry.c), and what every backend
 * does alike with it (procwatch-handle.c): filling it, closing it,
 * polling it, and the errors of opening it. "Handle" means this alone in
 * the library; a pidfs file handle is a process token
 * (procwatch-process-token.c).
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ProcwatchBackend ProcwatchBackend;

typedef struct
{
  int fd;           /* pidfd or /proc/<pid> directory fd; -1 once closed */
  GPid pid;         /* 0 when not known (pidfd of a reaped process) */
  guint64 inode;    /* pidfs inode (Linux 6.9+): unique for the boot; 0 if unknown */
  /* A pidfd kept beside a /proc handle, for the status the kernel keeps
   * after the reap (PIDFD_INFO_EXIT); -1 if none. The pidfd backend's fd
   * is its pidfd. */
  int pidfd;
  /* Whether the process was a child of ours when it was watched. */
  guint child : 1;
  /* The wait status of the exited child, as the backend's read_state()
   * peeked at it on the way (exit_status_seen), for read_status() to
   * report: by the time read_status() runs, another thread may have begun
   * to reap the child, and nothing tells its status until the reap ends.
   * Or (exit_status_at_reap) that read_state() found the exited process
   * not to be our child: nobody tells us its status before the reap.
   * Written by read_state() through its const handle: the one part of a
   * handle that changes after it is opened, and only from unknown to what
   * stays true for good. */
  guint exit_status_seen : 1;
  guint exit_status_at_reap : 1;
  /* @inode was learnt beside a /proc handle (a pidfd opened and closed):
   * it tells the process apart from others, but the backend does not
   * promise it to the application (see procwatch_process_get_inode ()). */
  guint inode_identity_only : 1;
  int exit_status;
} ProcwatchHandle;

#define PROCWATCH_HANDLE_INIT { -1, 0, 0, -1, FALSE, FALSE, FALSE, FALSE, 0 }

void     procwatch_handle_set              (ProcwatchHandle        *handle,
                                            int                     fd,
                                            GPid                    pid,
                                            guint64                 inode);
void     procwatch_handle_close            (ProcwatchHandle        *handle);
guint64  procwatch_handle_get_public_inode (const ProcwatchHandle  *handle);
int      procwatch_handle_get_pidfd        (const ProcwatchBackend *backend,
                                            const ProcwatchHandle  *handle);
gboolean procwatch_handle_same_pidfd       (const ProcwatchBackend *backend,
                                            const ProcwatchHandle  *a,
                                            const ProcwatchHandle  *b);
guint32  procwatch_fd_poll                 (int                     fd);
guint32  procwatch_handle_poll             (const ProcwatchHandle  *handle);
void     procwatch_set_error_from_errno    (GError                **error,
                                            int                     saved_errno,
                                            GPid                    pid,
                                            const char             *what);

G_END_DECLS
