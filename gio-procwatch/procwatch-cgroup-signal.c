/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "procwatch-cgroup-files-private.h"
#include "procwatch-cgroup-signal-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-test-seam-private.h"

#ifdef PROCWATCH_TEST_SEAM
guint procwatch_test_seam_freeze_limit_ms;
gboolean procwatch_test_seam_no_cgroup_kill;
gboolean procwatch_test_seam_freeze_never_settles;
void (*procwatch_test_seam_before_tree_signal) (int dir_fd);
#endif

/* cgroup id → how many signals of this process hold its freeze. Signals
 * sent to one cgroup overlap (TERM, then KILL soon after): the first
 * freezes, the last to finish thaws, and none mistakes the freeze of
 * another for one someone else made and leaves the tree frozen. */
G_LOCK_DEFINE_STATIC (freezes);
static GHashTable *freezes;

/* Takes a hold on the freeze of @id if this process froze it; returns
 * whether it did. */
static gboolean
hold_our_freeze (guint64 id)
{
  gpointer count;
  gboolean held = FALSE;

  G_LOCK (freezes);
  if (freezes != NULL && (count = g_hash_table_lookup (freezes, &id)) != NULL)
    {
      g_hash_table_insert (freezes, g_memdup2 (&id, sizeof id),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (count) + 1));
      held = TRUE;
    }
  G_UNLOCK (freezes);

  return held;
}

static void
record_our_freeze (guint64 id)
{
  G_LOCK (freezes);
  if (freezes == NULL)
    freezes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_hash_table_insert (freezes, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (1));
  G_UNLOCK (freezes);
}

/* Gives up a hold; returns whether it was the last, to thaw. */
static gboolean
release_our_freeze (guint64 id)
{
  guint count;

  G_LOCK (freezes);
  count = GPOINTER_TO_UINT (g_hash_table_lookup (freezes, &id));
  g_assert (count > 0);
  if (count == 1)
    g_hash_table_remove (freezes, &id);
  else
    g_hash_table_insert (freezes, g_memdup2 (&id, sizeof id),
                         GUINT_TO_POINTER (count - 1));
  G_UNLOCK (freezes);

  return count == 1;
}

/* How soon the cgroups below the top are read again while the top says
 * `frozen 1` and one of them does not yet. */
#define TREE_RECHECK_US 1000

/* How many more freezes a signal may take for the children of processes
 * that had it blocked (below). */
#define MAX_EXTRA_ROUNDS 4
/* How long, thawed, those processes have to take the signal before the
 * next freeze: microseconds for one between blocking and fork(); one that
 * keeps it blocked (a signalfd) delays the end by this much. */
#define SETTLE_LIMIT_US (200 * 1000)

enum
{
  STAGE_START,
  STAGE_FREEZING,
  STAGE_SETTLING,
  STAGE_DONE,
};

/* A process that had the signal blocked when it was signalled: frozen
 * between blocking every signal and the fork system call (a C library may
 * block them around fork (), as musl does; on Debian 13 such children were
 * seen escaping), it makes a child once thawed, and that child never gets
 * the signal: pending signals are not inherited. The child is looked for
 * in one more freeze, once each such process has unblocked or is gone. */
typedef struct
{
  GPid pid;
  guint64 start_time;
} ProcwatchBlocker;

static gboolean
is_at_or_below (const char *path,
                const char *top)
{
  gsize length = strlen (top);

  if (strcmp (top, "/") == 0)
    return TRUE;
  return strncmp (path, top, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

static void
arm_timer (int    timer_fd,
           gint64 after_us)
{
  struct itimerspec spec = { 0 };

  /* Zero would disarm it: "now" is the next nanosecond. */
  spec.it_value.tv_sec = after_us / G_USEC_PER_SEC;
  spec.it_value.tv_nsec = MAX ((after_us % G_USEC_PER_SEC) * 1000, 1);
  timerfd_settime (timer_fd, 0, &spec, NULL);
}

/* In any thread: only wakes the dispatch, which sees the cancellation. */
static void
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  ProcwatchCgroupSignal *op = user_data;

  arm_timer (op->timer_fd, 0);
}

static void
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *relative)
{
  GIOErrorEnum code = g_io_error_from_errno (saved_errno);

  /* A cgroup removed under an open directory gives ENODEV. */
  if (saved_errno == ENOENT || saved_errno == ENODEV)
    code = G_IO_ERROR_NOT_FOUND;
  g_set_error (error, G_IO_ERROR, code,
               /* Translators: the first %s is a cgroup path, the second the system's error message. */
               _("Cannot signal cgroup %s: %s"), relative, g_strerror (saved_errno));
}

/* Opens the cgroup that @relative names now and checks it is still the
 * one with @id: a unit restarted under the same name is another cgroup. */
static int
open_checked (const char  *relative,
              guint64      id,
              GError     **error)
{
  g_autoptr(GPtrArray) mounts = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *own = NULL;
  g_autofree char *text = NULL;
  gsize length;
  struct stat st;
  int dir_fd;

  if ((mounts = procwatch_cgroup_read_mounts (error)) == NULL ||
      !procwatch_cgroup_resolve (mounts, relative, &resolved, &absolute, error))
    return -1;

  dir_fd = open (absolute, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || fstat (dir_fd, &st) != 0)
    {
      set_errno_error (error, errno, relative);
      if (dir_fd >= 0)
        close (dir_fd);
      return -1;
    }

  if (st.st_ino != id)
    {
      close (dir_fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   /* Translators: %s is a cgroup path. */
                   _("Cannot signal cgroup %s: the cgroup watched is gone, and the path now names another one"),
                   relative);
      return -1;
    }

  if (g_file_get_contents ("/proc/self/cgroup", &text, &length, NULL))
    own = procwatch_proc_find_cgroup_v2 (text, length);
  if (own != NULL && is_at_or_below (own, relative))
    {
      close (dir_fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: the first %s is a cgroup path, the second the caller's. */
                   _("Cannot signal cgroup %s: this process is in it (in %s), and would stop itself"),
                   relative, own);
      return -1;
    }

  return dir_fd;
}

/* Errors that come up here are kept for the first step, which is taken
 * from the dispatch like every other: the call never completes by itself. */
ProcwatchCgroupSignal *
procwatch_cgroup_signal_new (GTask      *task,
                             int         signum,
                             const char *relative,
                             guint64     id)
{
  ProcwatchCgroupSignal *op = g_rc_box_new0 (ProcwatchCgroupSignal);
  GCancellable *cancellable = g_task_get_cancellable (task);

  op->entry.kind = PROCWATCH_SOURCE_ENTRY_SIGNAL;
  op->task = g_object_ref (task);
  op->signum = signum;
  op->relative = g_strdup (relative);
  op->id = id;
  op->events_fd = -1;
  op->dir_fd = -1;
  op->stage = STAGE_START;
  op->signalled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  op->blocking = g_array_new (FALSE, FALSE, sizeof (ProcwatchBlocker));

  op->timer_fd = timerfd_create (CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  if (op->timer_fd < 0)
    {
      set_errno_error (&op->error, errno, relative);
      return op;
    }

  op->dir_fd = open_checked (relative, id, &op->error);
  if (op->dir_fd >= 0)
    {
      op->events_fd = openat (op->dir_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
      if (op->events_fd < 0)
        set_errno_error (&op->error, errno, relative);
    }

  arm_timer (op->timer_fd, 0);
  if (cancellable != NULL)
    op->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), op, NULL);

  return op;
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static void
signal_clear (ProcwatchCgroupSignal *op)
{
  g_clear_pointer (&op->signalled, g_hash_table_unref);
  g_clear_pointer (&op->blocking, g_array_unref);
  g_assert (op->cancelled_id == 0);
  close_fd (&op->dir_fd);
  close_fd (&op->events_fd);
  close_fd (&op->timer_fd);
  g_clear_object (&op->task);
  g_clear_error (&op->error);
  g_free (op->relative);
}

ProcwatchCgroupSignal *
procwatch_cgroup_signal_ref (ProcwatchCgroupSignal *op)
{
  return g_rc_box_acquire (op);
}

void
procwatch_cgroup_signal_unref (ProcwatchCgroupSignal *op)
{
  g_rc_box_release_full (op, (GDestroyNotify) signal_clear);
}

gboolean
procwatch_cgroup_signal_is_done (ProcwatchCgroupSignal *op)
{
  return op->stage == STAGE_DONE;
}

static gboolean
write_value (int         dir_fd,
             const char *file,
             const char *value,
             int        *saved_errno)
{
  int fd = openat (dir_fd, file, O_WRONLY | O_CLOEXEC);
  gboolean written;

  if (fd < 0)
    {
      *saved_errno = errno;
      return FALSE;
    }

  written = write (fd, value, strlen (value)) == (gssize) strlen (value);
  *saved_errno = errno;
  close (fd);
  return written;
}

/* Puts back the cgroup.freeze we changed, whatever happened, once no
 * other signal of ours holds it: a tree that someone else froze was not
 * changed, and stays frozen. */
static void
restore (ProcwatchCgroupSignal *op)
{
  int saved_errno;

  if (op->froze && release_our_freeze (op->id))
    write_value (op->dir_fd, "cgroup.freeze", "0", &saved_errno);
  op->froze = FALSE;
}

static guint
freeze_limit_ms (void)
{
#ifdef PROCWATCH_TEST_SEAM
  if (procwatch_test_seam_freeze_limit_ms != 0)
    return procwatch_test_seam_freeze_limit_ms;
#endif
  return PROCWATCH_CGROUP_FREEZE_LIMIT_MS;
}

/* 1 frozen, 0 not yet, -1 removed. */
static int
read_frozen (int events_fd)
{
  char text[256];
  gssize length = pread (events_fd, text, sizeof text - 1, 0);
  const char *value;
  gsize value_length;

  if (length < 0)
    return -1;

#ifdef PROCWATCH_TEST_SEAM
  if (procwatch_test_seam_freeze_never_settles)
    return 0;
#endif

  if (!procwatch_proc_find_line (text, length, "frozen ", &value, &value_length) ||
      value_length != 1)
    return 0;
  return value[0] == '1';
}

/* Whether every cgroup below @dir_fd says `frozen 1`. The kernel says so
 * of a cgroup once its own processes are frozen, whatever the cgroups
 * below it say (Linux 6.18): a process in one of those may still be
 * running, and fork a child that the listing of its cgroup.procs misses.
 * A cgroup removed meanwhile was empty. Takes @dir_fd. */
static gboolean
tree_is_frozen (int dir_fd)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *entry;
  gboolean frozen = TRUE;

  if (dir == NULL)
    {
      close (dir_fd);
      return FALSE;
    }

  while (frozen && (entry = readdir (dir)) != NULL)
    {
      int child_fd;
      int events_fd;

      if (entry->d_type != DT_DIR || entry->d_name[0] == '.')
        continue;

      child_fd = openat (dirfd (dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child_fd < 0)
        {
          frozen = errno == ENOENT || errno == ENODEV;
          continue;
        }

      events_fd = openat (child_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
      if (events_fd < 0)
        frozen = errno == ENOENT || errno == ENODEV;
      else
        {
          frozen = read_frozen (events_fd) != 0;
          close (events_fd);
        }

      if (frozen)
        frozen = tree_is_frozen (child_fd);
      else
        close (child_fd);
    }

  closedir (dir);
  return frozen;
}

/* Field 22 of /proc/<pid>/stat, which tells a process from a later one
 * with its pid; 0 if it is gone. */
static guint64
read_start_time (GPid pid)
{
  char path[64];
  char text[1024];
  g_auto(GStrv) fields = NULL;
  const char *end;
  gssize length;

  g_snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  length = procwatch_proc_read_file (path, text, sizeof text);
  if (length <= 0 || (end = g_strrstr_len (text, length, ")")) == NULL)
    return 0;
  /* After the name: field 3 (the state) on; start time is field 22. */
  fields = g_strsplit (end + 1, " ", 22);
  if (g_strv_length (fields) < 21)
    return 0;
  return g_ascii_strtoull (fields[20], NULL, 10);
}

/* Whether @pid blocks @signum (its SigBlk in /proc/<pid>/status). */
static gboolean
blocks_signal (GPid pid,
               int  signum)
{
  char path[64];
  char text[4096];
  const char *value;
  gsize value_length;
  gssize length;

  g_snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  length = procwatch_proc_read_file (path, text, sizeof text - 1);
  if (length <= 0)
    return FALSE;
  text[length] = '\0';
  if (!procwatch_proc_find_line (text, length, "SigBlk:", &value, &value_length))
    return FALSE;
  return (g_ascii_strtoull (value, NULL, 16) >> (signum - 1)) & 1;
}

/* Records @pid as signalled; FALSE if it was already, in an earlier
 * freeze of this signal. */
static gboolean
record_signalled (ProcwatchCgroupSignal *op,
                  GPid                   pid)
{
  guint64 start_time = read_start_time (pid);
  ProcwatchBlocker blocker = { pid, start_time };

  if (!g_hash_table_add (op->signalled,
                         g_strdup_printf ("%d %" G_GUINT64_FORMAT, (int) pid, start_time)))
    return FALSE;
  if (start_time != 0 && blocks_signal (pid, op->signum))
    g_array_append_val (op->blocking, blocker);
  return TRUE;
}

/* Whether every process that had the signal blocked has unblocked it (and
 * so taken it) or is gone. */
static gboolean
blockers_settled (ProcwatchCgroupSignal *op)
{
  guint i;

  for (i = 0; i < op->blocking->len; i++)
    {
      ProcwatchBlocker *blocker = &g_array_index (op->blocking, ProcwatchBlocker, i);

      if (read_start_time (blocker->pid) == blocker->start_time &&
          blocks_signal (blocker->pid, op->signum))
        return FALSE;
    }
  return TRUE;
}

/* Each process of one cgroup, through a pidfd; a pid is taken only for a
 * process that is still in the tree once its pidfd is open, so a pid
 * reused meanwhile is never signalled. A process signalled in an earlier
 * freeze of this signal is not signalled again. */
static gboolean
signal_procs (ProcwatchCgroupSignal  *op,
              int                     dir_fd,
              GError                **error)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GString *buffer;
  char chunk[4096];
  gssize n;
  int fd = openat (dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
  guint i;

  if (fd < 0)
    {
      /* Removed meanwhile: it was empty. */
      if (errno == ENOENT || errno == ENODEV)
        return TRUE;
      set_errno_error (error, errno, op->relative);
      return FALSE;
    }

  buffer = g_string_new (NULL);
  while ((n = read (fd, chunk, sizeof chunk)) > 0)
    g_string_append_len (buffer, chunk, n);
  close (fd);
  text = g_string_free (buffer, FALSE);
  lines = g_strsplit (text, "\n", -1);

  for (i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *cgroup = NULL;
      gint64 pid;
      int pidfd;

      if (!g_ascii_string_to_signed (lines[i], 10, 1, G_MAXINT, &pid, NULL))
        continue;

      pidfd = syscall (SYS_pidfd_open, (pid_t) pid, 0);
      if (pidfd < 0 && (errno == ENOSYS || errno == EPERM))
        {
          /* No pidfds (Linux 5.2, a seccomp filter, valgrind): the pid is
           * checked to be in the tree right before kill(). Frozen, a
           * process of the tree cannot end by itself meanwhile. */
          cgroup = procwatch_proc_read_cgroup ((GPid) pid);
          if ((cgroup == NULL || is_at_or_below (cgroup, op->relative)) &&
              record_signalled (op, (GPid) pid) &&
              kill ((pid_t) pid, op->signum) != 0 && errno != ESRCH)
            {
              set_errno_error (error, errno, op->relative);
              return FALSE;
            }
          continue;
        }
      if (pidfd < 0)
        {
          if (errno == ESRCH)
            continue;
          set_errno_error (error, errno, op->relative);
          return FALSE;
        }

      cgroup = procwatch_proc_read_cgroup ((GPid) pid);
      if ((cgroup == NULL || is_at_or_below (cgroup, op->relative)) &&
          record_signalled (op, (GPid) pid) &&
          syscall (SYS_pidfd_send_signal, pidfd, op->signum, NULL, 0) != 0 && errno != ESRCH)
        {
          set_errno_error (error, errno, op->relative);
          close (pidfd);
          return FALSE;
        }
      close (pidfd);
    }

  return TRUE;
}

/* Takes @dir_fd. */
static gboolean
signal_tree (ProcwatchCgroupSignal  *op,
             int                     dir_fd,
             GError                **error)
{
  DIR *dir;
  struct dirent *entry;
  gboolean ok = signal_procs (op, dir_fd, error);

  if (!ok || (dir = fdopendir (dir_fd)) == NULL)
    {
      close (dir_fd);
      return ok;
    }

  while (ok && (entry = readdir (dir)) != NULL)
    {
      int child_fd;

      if (entry->d_type != DT_DIR || entry->d_name[0] == '.')
        continue;
      child_fd = openat (dirfd (dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child_fd >= 0)
        ok = signal_tree (op, child_fd, error);
    }

  closedir (dir);
  return ok;
}

/* SIGKILL in one write where the kernel has cgroup.kill (5.14); TRUE
 * when done, FALSE with no error to freeze instead. */
static gboolean
kill_at_once (ProcwatchCgroupSignal  *op,
              GError                **error)
{
  int saved_errno;

#ifdef PROCWATCH_TEST_SEAM
  if (procwatch_test_seam_no_cgroup_kill)
    return FALSE;
#endif

  if (write_value (op->dir_fd, "cgroup.kill", "1", &saved_errno))
    return TRUE;
  if (saved_errno == ENOENT)
    return FALSE;

  set_errno_error (error, saved_errno, op->relative);
  return TRUE;
}

static gboolean
start_freeze (ProcwatchCgroupSignal  *op,
              GError                **error)
{
  char value[8] = "";
  int fd = openat (op->dir_fd, "cgroup.freeze", O_RDWR | O_CLOEXEC);
  int saved_errno;

  if (fd < 0 && errno == ENOENT)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   /* Translators: %s is a cgroup path. */
                   _("Cannot signal cgroup %s: it has no cgroup.freeze (Linux 5.2 or later has it for every cgroup but the root)"),
                   op->relative);
      return FALSE;
    }
  if (fd < 0 || pread (fd, value, sizeof value - 1, 0) < 0)
    {
      set_errno_error (error, errno, op->relative);
      if (fd >= 0)
        close (fd);
      return FALSE;
    }

  /* Frozen by another signal of ours: held, and thawed by the last. */
  op->froze = hold_our_freeze (op->id);
  if (value[0] != '1' && write (fd, "1", 1) != 1)
    {
      saved_errno = errno;
      close (fd);
      restore (op);
      set_errno_error (error, saved_errno, op->relative);
      return FALSE;
    }
  if (value[0] != '1' && !op->froze)
    {
      record_our_freeze (op->id);
      op->froze = TRUE;
    }
  close (fd);

  op->deadline = g_get_monotonic_time () + (gint64) freeze_limit_ms () * 1000;
  arm_timer (op->timer_fd, op->deadline - g_get_monotonic_time ());
  return TRUE;
}

/* One step, taken from the dispatch at each wake-up of its fds; TRUE once
 * done, with @error set if it failed. The tree is thawed (if we froze it)
 * before this says done, whatever the outcome. */
gboolean
procwatch_cgroup_signal_advance (ProcwatchCgroupSignal  *op,
                                 GError                **error)
{
  guint64 expirations = 0;
  gboolean timer_expired;
  gint64 remaining;
  int frozen;

  g_assert (op->stage != STAGE_DONE);

  timer_expired = read (op->timer_fd, &expirations, sizeof expirations) > 0;

  if (op->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&op->error));
      goto done;
    }

  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (op->task), error))
    goto done;

  if (op->stage == STAGE_SETTLING)
    {
      /* Thawed: each process that had the signal blocked goes on to
       * unblock it (and take it) or to exit, having made its child. */
      if (!blockers_settled (op) && g_get_monotonic_time () < op->deadline)
        {
          arm_timer (op->timer_fd, TREE_RECHECK_US);
          return FALSE;
        }
      g_array_set_size (op->blocking, 0);
      op->stage = STAGE_START;
    }

  if (op->stage == STAGE_START)
    {
      if (op->rounds == 0 && op->signum == SIGKILL && kill_at_once (op, error))
        goto done;
      if (!start_freeze (op, error))
        goto done;
      op->stage = STAGE_FREEZING;
      /* Often frozen by now: no need to wait for the notification. */
      timer_expired = FALSE;
    }

  frozen = read_frozen (op->events_fd);
  if (frozen < 0)
    {
      /* Removed, so it was empty: nobody was left to signal. */
      goto done;
    }
  if (frozen)
    {
      /* Opened anew: an fd made with dup() would share the directory's
       * read position. */
      int dir_fd = openat (op->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

      if (dir_fd < 0)
        {
          set_errno_error (error, errno, op->relative);
          goto done;
        }
      if (tree_is_frozen (dir_fd))
        {
          dir_fd = openat (op->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          if (dir_fd < 0)
            {
              set_errno_error (error, errno, op->relative);
              goto done;
            }
#ifdef PROCWATCH_TEST_SEAM
          if (procwatch_test_seam_before_tree_signal != NULL)
            procwatch_test_seam_before_tree_signal (dir_fd);
#endif
          /* Only a tree we froze: one frozen by someone else stays so. */
          if (signal_tree (op, dir_fd, error) && op->blocking->len > 0 && op->froze &&
              op->rounds < MAX_EXTRA_ROUNDS)
            {
              /* Thawed, the processes that had the signal blocked may
               * fork before they take it: once they have, one more freeze
               * finds their children. */
              restore (op);
              op->rounds++;
              op->stage = STAGE_SETTLING;
              op->deadline = g_get_monotonic_time () + SETTLE_LIMIT_US;
              arm_timer (op->timer_fd, TREE_RECHECK_US);
              return FALSE;
            }
          goto done;
        }
    }

  remaining = op->deadline - g_get_monotonic_time ();
  if (timer_expired && remaining <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                   /* Translators: %s is a cgroup path, %u a number of milliseconds. */
                   _("Cannot signal cgroup %s: its processes were not all frozen after %u ms (one may be in uninterruptible sleep); nothing was signalled"),
                   op->relative, freeze_limit_ms ());
      goto done;
    }

  /* The timer wakes us at the limit; while the top says `frozen 1` and a
   * cgroup below does not yet (those are not in the epoll set), it wakes
   * us soon to read them again. Set after the check of the cancellable, so
   * a cancellation meanwhile must wake us again. */
  arm_timer (op->timer_fd, frozen ? MIN (TREE_RECHECK_US, remaining) : remaining);
  if (g_cancellable_is_cancelled (g_task_get_cancellable (op->task)))
    arm_timer (op->timer_fd, 0);

  return FALSE;

done:
  restore (op);
  op->stage = STAGE_DONE;
  return TRUE;
}

/* Done: the task, for the dispatch to complete. The fds must be out of
 * the epoll set. */
GTask *
procwatch_cgroup_signal_end (ProcwatchCgroupSignal *op)
{
  GCancellable *cancellable = g_task_get_cancellable (op->task);

  restore (op);
  op->stage = STAGE_DONE;
  g_cancellable_disconnect (cancellable, op->cancelled_id);
  op->cancelled_id = 0;
  close_fd (&op->dir_fd);
  close_fd (&op->events_fd);
  close_fd (&op->timer_fd);

  return g_steal_pointer (&op->task);
}

static gboolean
settle (gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_error (task, g_error_copy (g_task_get_task_data (task)));
  return G_SOURCE_REMOVE;
}

/* The monitor stops inside a call of the application, or the operation
 * could not join its epoll set: it ends now, its task from an idle. */
void
procwatch_cgroup_signal_settle_later (ProcwatchCgroupSignal *op,
                                      const char            *reason)
{
  g_autoptr(GError) error = g_steal_pointer (&op->error);
  g_autoptr(GTask) task = procwatch_cgroup_signal_end (op);
  g_autoptr(GSource) idle = g_idle_source_new ();

  if (task == NULL)
    return;

  if (error == NULL)
    error = g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                         /* Translators: %s is a cgroup path, then why, such as "the monitor was closed". */
                         _("Stopped signalling cgroup %s: %s"), op->relative, _(reason));
  g_task_set_task_data (task, g_steal_pointer (&error), (GDestroyNotify) g_error_free);
  g_source_set_static_name (idle, "[gio-procwatch] settle cgroup signal");
  g_task_attach_source (task, idle, settle);
}
