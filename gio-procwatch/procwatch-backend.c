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
#include "procwatch-proc-files-private.h"

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


/* The name (comm) and the cgroup v2 path of the process, read by pid and
 * kept only if the handle shows the process unreaped afterwards: until the
 * reap, its pid cannot belong to another. NULL where it cannot be told. */
void
procwatch_handle_read_identity (const ProcwatchBackend  *backend,
                                const ProcwatchHandle   *handle,
                                char                   **name,
                                char                   **cgroup)
{
  g_autofree char *read_name = NULL;
  g_autofree char *read_cgroup = NULL;
  int pidfd;
  gboolean reaped;

  *name = NULL;
  *cgroup = NULL;

  if (handle->pid <= 0 || handle->fd < 0)
    return;

  read_name = procwatch_proc_read_comm (handle->pid);
  read_cgroup = procwatch_proc_read_cgroup (handle->pid);
  if (read_name == NULL && read_cgroup == NULL)
    return;

  /* One check for both reads: if the handle's process was not reaped after
   * them, the pid was still its own while they were made. */
  pidfd = procwatch_handle_get_pidfd (backend, handle);
  reaped = pidfd >= 0 ? procwatch_pidfd_is_reaped (pidfd)
                      : backend->read_state (backend, handle, 0) == PROCWATCH_PROCESS_STATE_REAPED;
  if (reaped)
    return;

  *name = g_steal_pointer (&read_name);
  *cgroup = g_steal_pointer (&read_cgroup);
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
