/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The registry of backends, the choice among them, and what the monitor
 * asks of any backend's handle: whether two name one process, and the
 * process's name and cgroup.
 */

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-cgroup-files-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-shared-string-private.h"
#include "procwatch-test-seam-private.h"

#ifdef PROCWATCH_TEST_SEAM
guint procwatch_test_seam_cgroup_path_reads;
void (*procwatch_test_seam_before_identity_read) (GPid pid);
#endif

/* In the order they are tried: the first that works on this kernel wins. */
static const ProcwatchBackend *const backends[] = {
  &procwatch_backend_pidfd,
  &procwatch_backend_procfs,
  &procwatch_backend_poll,
};

static const ProcwatchBackend *
find_backend (const char *name)
{
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (backends); i++)
    if (g_strcmp0 (backends[i]->name, name) == 0)
      return backends[i];

  return NULL;
}

/* The backend named @forced if it works here, else the first that does;
 * NULL if none does. A @forced name that cannot be honoured is warned about:
 * it is a setting somebody made on purpose. */
const ProcwatchBackend *
procwatch_backend_choose (const char *forced)
{
  gsize i;

  if (forced != NULL && *forced != '\0')
    {
      const ProcwatchBackend *backend = find_backend (forced);
      g_autoptr(GError) error = NULL;

      if (backend == NULL)
        g_warning ("PROCWATCH_BACKEND=%s names no backend (known: pidfd, procfs, poll); "
                   "choosing one automatically", forced);
      else if (!backend->is_supported (&error))
        g_warning ("PROCWATCH_BACKEND=%s is not available: %s; choosing one automatically",
                   forced, error->message);
      else
        return backend;
    }

  for (i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autoptr(GError) error = NULL;

      if (backends[i]->is_supported (&error))
        return backends[i];

      g_debug ("Backend %s is not available: %s", backends[i]->name, error->message);
    }

  return NULL;
}

/* The backend for this process, chosen once, at first use. */
const ProcwatchBackend *
procwatch_backend_get_default (void)
{
  static const ProcwatchBackend *backend;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      backend = procwatch_backend_choose (g_getenv ("PROCWATCH_BACKEND"));
      g_once_init_leave (&initialized, 1);
    }

  return backend;
}

/* Whether @newer, opened after @older, refers to the same process. A pid
 * cannot be reused before its process is reaped, so without pidfs inodes it
 * is enough that @older still is not reaped now that @newer is open. */
gboolean
procwatch_backend_same_process (const ProcwatchBackend *backend,
                                const ProcwatchHandle  *older,
                                const ProcwatchHandle  *newer)
{
  if (older->inode != 0 && newer->inode != 0)
    return older->inode == newer->inode;

  return older->pid == newer->pid &&
         older->pid > 0 &&
         backend->read_state (backend, older, 0) != PROCWATCH_PROCESS_STATE_REAPED;
}


/* The monitor's /proc fd, opened at its first watch by pid (see
 * procwatch_proc_open_own ()); -1 if there is none to use. Not opened (out
 * of fds, or no /proc mounted yet), it is tried again at the next watch. */
static int
get_proc_fd (int *proc_fd)
{
  int fd;

  if (*proc_fd == PROCWATCH_PROC_FD_UNKNOWN)
    {
      if (!procwatch_proc_open_own (&fd))
        return -1;
      *proc_fd = fd >= 0 ? fd : PROCWATCH_PROC_FD_NOT_OWN;
    }

  return *proc_fd >= 0 ? *proc_fd : -1;
}

/* Whether the process of @handle was not reaped yet (and so still had its
 * pid) after the reads, asked of its pidfd (@child and @cgroup_id as
 * procwatch_pidfd_check_watched () tells them) or else of the backend. */
static gboolean
check_unreaped (const ProcwatchBackend *backend,
                const ProcwatchHandle  *handle,
                int                     pidfd,
                gboolean               *child,
                guint64                *cgroup_id)
{
  *cgroup_id = 0;

  if (pidfd >= 0)
    return procwatch_pidfd_check_watched (pidfd, handle->pid, child, cgroup_id);

  return backend->read_state (backend, handle, 0) != PROCWATCH_PROCESS_STATE_REAPED;
}

/* The shared cgroup path of @cgroup_id, the cgroup the process of @handle
 * was in when it was shown unreaped: found by the id, so that only the
 * first process of a cgroup reads /proc/<pid>/cgroup, or read so and
 * remembered for the id once the path is shown to name that cgroup. */
static const char *
acquire_cgroup_of_id (const ProcwatchBackend *backend,
                      const ProcwatchHandle  *handle,
                      int                     proc_fd,
                      int                     pidfd,
                      guint64                 cgroup_id)
{
  g_autofree char *path = NULL;
  const char *held;
  guint64 again = 0;

  held = procwatch_shared_string_acquire_by_id (cgroup_id);
  if (held != NULL || proc_fd < 0)
    return held;

  PROCWATCH_TEST_SEAM_COUNT (cgroup_path_reads);
  path = procwatch_proc_read_cgroup_at (proc_fd, handle->pid);
  if (path == NULL)
    return NULL;

  /* The process may have moved since the id was read, or been reaped and
   * its pid reused: the path names the cgroup of the id, or is not kept
   * for it. */
  if (procwatch_cgroup_path_has_id (path, cgroup_id))
    return procwatch_shared_string_acquire_with_id (path, cgroup_id);

  /* Not to be told here (no cgroup2 mount): the path, for this process
   * alone, if the process was still unreaped, and in the same cgroup, after
   * the read. */
  if (check_unreaped (backend, handle, pidfd, NULL, &again) && again == cgroup_id)
    return procwatch_shared_string_acquire (path);

  return NULL;
}

/* The name (comm) and the cgroup v2 path of the process, read by pid and
 * kept only if the handle shows the process unreaped afterwards: until the
 * reap, its pid cannot belong to another. NULL where it cannot be told.
 * Through a pidfd on Linux 6.13+, one PIDFD_GET_INFO after the read of the
 * name shows the process unreaped, tells whether it is our child (the
 * pidfd backend's open_pid () leaves that to here) and gives its cgroup id,
 * by which the path is found: a watch reads one /proc file. @proc_fd is the
 * monitor's (PROCWATCH_PROC_FD_UNKNOWN before its first watch). */
void
procwatch_handle_read_identity (const ProcwatchBackend  *backend,
                                ProcwatchHandle         *handle,
                                int                     *proc_fd,
                                ProcwatchIdentity       *identity)
{
  g_autofree char *read_cgroup = NULL;
  gboolean cgroup_read_first;
  gboolean child = FALSE;
  guint64 cgroup_id = 0;
  gssize name_length = -1;
  int pidfd;
  int fd;

  identity->name = NULL;
  identity->name_heap = NULL;
  identity->cgroup = NULL;

  if (handle->pid <= 0 || handle->fd < 0)
    return;

  pidfd = procwatch_handle_get_pidfd (backend, handle);
  fd = get_proc_fd (proc_fd);

#ifdef PROCWATCH_TEST_SEAM
  if (procwatch_test_seam_before_identity_read != NULL)
    procwatch_test_seam_before_identity_read (handle->pid);
#endif

  if (fd >= 0)
    name_length = procwatch_proc_read_comm_at (fd, handle->pid, identity->name_buffer,
                                               sizeof identity->name_buffer);

  /* Where no cgroup id is to be had, the path is read before the check,
   * as the name is. */
  cgroup_read_first = pidfd < 0 || procwatch_pidfd_tells_cgroup_id () < 0;
  if (cgroup_read_first && fd >= 0)
    {
      PROCWATCH_TEST_SEAM_COUNT (cgroup_path_reads);
      read_cgroup = procwatch_proc_read_cgroup_at (fd, handle->pid);
    }

  /* One check for the reads: if the handle's process was not reaped after
   * them, the pid was still its own while they were made. The pidfd
   * backend's handle learns here whether it is our child, even if nothing
   * could be read. */
  if (!check_unreaped (backend, handle, pidfd,
                       backend->handle_fd_is_pidfd ? &child : NULL, &cgroup_id))
    return;

  if (backend->handle_fd_is_pidfd)
    handle->child = child;

  if (name_length >= 0)
    {
      if (g_utf8_validate_len (identity->name_buffer, name_length, NULL))
        identity->name = identity->name_buffer;
      else
        identity->name = identity->name_heap = g_utf8_make_valid (identity->name_buffer,
                                                                  name_length);
    }

  if (cgroup_id != 0)
    {
      identity->cgroup = acquire_cgroup_of_id (backend, handle, fd, pidfd, cgroup_id);
      return;
    }

  /* No id after all (the first watch on a kernel without them, or a
   * process whose parent we cannot see): the path as the name was read,
   * with a check of its own. */
  if (!cgroup_read_first && fd >= 0)
    {
      PROCWATCH_TEST_SEAM_COUNT (cgroup_path_reads);
      read_cgroup = procwatch_proc_read_cgroup_at (fd, handle->pid);
      if (read_cgroup != NULL && !check_unreaped (backend, handle, pidfd, NULL, &cgroup_id))
        g_clear_pointer (&read_cgroup, g_free);
    }

  if (read_cgroup != NULL)
    identity->cgroup = procwatch_shared_string_acquire (read_cgroup);
}

void
procwatch_identity_clear (ProcwatchIdentity *identity)
{
  g_clear_pointer (&identity->name_heap, g_free);
  g_clear_pointer (&identity->cgroup, procwatch_shared_string_release);
  identity->name = NULL;
}

/* Decided when a monitor is created, asking the kernel each time: a few
 * system calls on a pidfd of our own, and no cache that a test of the
 * decisions would have to reset. */
ProcwatchFeatures
procwatch_backend_probe_features (const ProcwatchBackend *backend)
{
  if (backend == NULL)
    return PROCWATCH_FEATURES_NONE;

  return backend->probe_features (backend);
}
