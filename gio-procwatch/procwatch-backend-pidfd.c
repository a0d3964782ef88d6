/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The pidfd backend (Linux 5.3+). A pidfd pins its process: it never refers
 * to a later process that reuses the pid. It polls readable once the process
 * has exited and, from Linux 6.9 on, also hangs up once it has been reaped.
 * Before 6.9 a reap raises no event, so it is probed for: signal 0 sent
 * through the pidfd fails with ESRCH once the process is gone.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-i18n-private.h"
#include "procwatch-backend-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-self-private.h"
#include "procwatch-test-seam-private.h"

#ifdef PROCWATCH_TEST_SEAM
guint procwatch_test_seam_pidfd_info_asks;
void (*procwatch_test_seam_pidfd_info_answer) (struct procwatch_pidfd_info *info);
const char *procwatch_test_seam_kernel_release;
#endif

static gboolean reap_raises_hup;
static gboolean pidfs_present;
static gboolean pidfs_hidden;

enum
{
  DEBUG_NO_POLLHUP = 1 << 0,
  DEBUG_NO_PIDFS = 1 << 1,
};

static const GDebugKey debug_keys[] = {
  { "no-pollhup", DEBUG_NO_POLLHUP },
  { "no-pidfs", DEBUG_NO_PIDFS },
};

/* PROCWATCH_DEBUG=no-pidfs: as before Linux 6.9, where a pidfd is an
 * anonymous inode with no number of its own, no file handle and no
 * hang-up at the reap. */
static gboolean
fd_is_on_pidfs (int fd)
{
  struct statfs fs;

  return !pidfs_hidden && fstatfs (fd, &fs) == 0 && fs.f_type == PIDFS_MAGIC;
}

/* Whether the pidfd backend acts as before pidfs, told to: file handles
 * are pidfs's too. */
gboolean
procwatch_pidfd_pidfs_hidden (void)
{
  return pidfs_hidden;
}

/* Before pidfs (Linux 6.9) a pidfd is an anonymous inode, told apart from
 * others only by its name. */
static gboolean
fd_is_pidfd (int fd)
{
  char path[64];
  char target[64];
  gssize length;

  if (fd_is_on_pidfs (fd))
    return TRUE;

  g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  length = readlink (path, target, sizeof target - 1);
  if (length < 0)
    return FALSE;

  target[length] = '\0';
  return strcmp (target, "anon_inode:[pidfd]") == 0;
}

/* Whether a reap makes a pidfd hang up is answered without starting a
 * process: the hang-up ("pidfd_poll: report POLLHUP when pid_task() ==
 * NULL") and pidfs came with the same kernel release, 6.9, so pidfds on
 * pidfs hang up. A process started only to ask would be seen by any thread
 * of the application that reaps with waitpid (-1, ..., __WALL), and in
 * strace. Where the answer is wrong the other way (the hang-up backported
 * to a kernel without pidfs), reaps are merely probed for. */
static gboolean
pidfd_is_supported (GError **error)
{
  const char *debug = g_getenv ("PROCWATCH_DEBUG");
  guint debug_flags = 0;
  int fd;

  if (debug != NULL)
    debug_flags = g_parse_debug_string (debug, debug_keys, G_N_ELEMENTS (debug_keys));
  pidfs_hidden = (debug_flags & DEBUG_NO_PIDFS) != 0;

  fd = procwatch_pidfd_open (getpid (), 0);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("pidfd_open() fails: %s"), g_strerror (saved_errno));
      return FALSE;
    }

  pidfs_present = fd_is_on_pidfs (fd);
  close (fd);

  reap_raises_hup = pidfs_present && (debug_flags & DEBUG_NO_POLLHUP) == 0;

  g_debug ("pidfd backend: pidfs %s, reaping %s",
           pidfs_present ? "present" : "absent",
           reap_raises_hup ? "raises POLLHUP" : "is probed for");

  return TRUE;
}

/* Set once a pidfd has refused PIDFD_GET_INFO as a kernel without it
 * does: ENOTTY before Linux 6.11, EINVAL on 6.11 and 6.12 (their pidfd
 * ioctls take no argument). A kernel that has it gives EINVAL only for a
 * struct smaller than its first version, which ours never is. */
static gint get_info_missing;

/* PIDFD_GET_INFO (Linux 6.13+), the one place that asks it: whether the
 * kernel answered about any bit of @mask. Every question about a pidfd's
 * process (pid, parent, exit status, core dump, and what newer kernels
 * add) comes through here, with the struct zeroed as the kernel wants.
 * Where the kernel has none it is asked once: a watch and an exit ask up
 * to three times, each a system call for nothing (ENOTTY in errno). */
gboolean
procwatch_pidfd_get_info (int                          pidfd,
                          guint64                      mask,
                          struct procwatch_pidfd_info *info)
{
  /* Zeroed in full: the kernel reads the mask and checks the rest. */
  memset (info, 0, sizeof *info);
  info->mask = mask;

  if (g_atomic_int_get (&get_info_missing))
    {
      errno = ENOTTY;
      return FALSE;
    }

  PROCWATCH_TEST_SEAM_COUNT (pidfd_info_asks);
  if (ioctl (pidfd, PROCWATCH_PIDFD_GET_INFO, info) != 0)
    {
      if (errno == ENOTTY || errno == EINVAL)
        g_atomic_int_set (&get_info_missing, 1);
      return FALSE;
    }

#ifdef PROCWATCH_TEST_SEAM
  if (procwatch_test_seam_pidfd_info_answer != NULL)
    procwatch_test_seam_pidfd_info_answer (info);
#endif

  return (info->mask & mask) != 0;
}

/* The wait status in a PIDFD_INFO_EXIT answer. The core flag of the status
 * is the authority on a core dump; a non-zero @coredump_mask (Linux 6.16+:
 * filled for the dump modes that report back, 0 for a plain core file)
 * adds it where the status might lack it. The COREDUMP bit of the mask
 * alone says nothing: Linux 6.18 sets it, with a @coredump_mask of 0, for
 * a process that dumped core into a file, and for one that never crashed
 * it fills in what a dump would be (PIDFD_COREDUMP_USER). */
static int
status_of_info (const struct procwatch_pidfd_info *info)
{
  int wait_status = info->exit_code;

  if ((info->mask & PIDFD_INFO_COREDUMP) && (info->coredump_mask & PIDFD_COREDUMPED) &&
      WIFSIGNALED (wait_status))
    wait_status |= WCOREFLAG;

  return wait_status;
}

/* The pid a pidfd refers to: 0 once reaped, or when the process is in a pid
 * namespace we cannot see. */
static GPid
pid_of_pidfd (int fd)
{
  struct procwatch_pidfd_info info;
  GPid pid;

  if (procwatch_pidfd_get_info (fd, PIDFD_INFO_PID, &info))
    return (GPid) info.pid;

  if (procwatch_proc_read_fdinfo_pid (fd, &pid) && pid > 0)
    return pid;

  return 0;
}

/* The pidfs inode of @fd, a pidfd on pidfs: the process's identity for
 * the boot. */
static guint64
pidfs_inode (int fd)
{
  struct stat st;

  if (sizeof st.st_ino >= sizeof (guint64) && fstat (fd, &st) == 0)
    return st.st_ino;

  return 0;
}

/* The pidfs inode of the process @pid names now, for a backend that holds
 * a /proc handle: with it, a pidfd of the same process handed over later
 * (once reaped, it names no pid) is known for the process already watched.
 * 0 without pidfds or pidfs. */
guint64
procwatch_pidfd_inode_of_pid (GPid pid)
{
  guint64 inode = 0;
  int fd = procwatch_pidfd_open (pid, 0);

  if (fd < 0)
    return 0;

  if (fd_is_on_pidfs (fd))
    inode = pidfs_inode (fd);
  close (fd);

  return inode;
}

/* Checks that @pidfd is a pidfd and returns a duplicate of it, or -1. */
int
procwatch_pidfd_dup (int      pidfd,
                     GPid    *pid,
                     guint64 *inode,
                     GError **error)
{
  gboolean on_pidfs;
  int saved_errno;
  int fd;

  if (pidfd < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %d is a file descriptor number. */
                   _("Cannot watch pidfd %d: not a file descriptor"), pidfd);
      return -1;
    }

  fd = fcntl (pidfd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    {
      saved_errno = errno;
      if (saved_errno == EBADF)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     _("Cannot watch pidfd %d: the file descriptor is not open"), pidfd);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                     /* Translators: %d is a file descriptor number, %s says why. */
                     _("Cannot watch pidfd %d: %s"), pidfd, g_strerror (saved_errno));
      return -1;
    }

  on_pidfs = fd_is_on_pidfs (fd);
  if (!on_pidfs && !fd_is_pidfd (fd))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot watch pidfd %d: the file descriptor is not a pidfd"), pidfd);
      return -1;
    }

  *pid = pid_of_pidfd (fd);
  *inode = on_pidfs ? pidfs_inode (fd) : 0;
  return fd;
}

/* Signal 0 fails with ESRCH once the process is gone, on every kernel with
 * pidfds; EPERM means it exists. */
gboolean
procwatch_pidfd_is_reaped (int pidfd)
{
  GPid pid;

  if (procwatch_pidfd_send_signal (pidfd, 0, NULL, 0) == 0)
    return FALSE;

  if (errno == ESRCH)
    return TRUE;

  if (errno == EPERM)
    return FALSE;

  /* Refused for some other reason (another pid namespace, a filter):
   * fdinfo says -1 once the process is reaped. */
  return procwatch_proc_read_fdinfo_pid (pidfd, &pid) && pid == -1;
}

/* The waitpid()-style status of what waitid() reported, or -1 if the
 * report is not of a terminated process. */
static int
wait_status_from_siginfo (const siginfo_t *info)
{
  switch (info->si_code)
    {
    case CLD_EXITED:
      return (info->si_status & 0xff) << 8;

    case CLD_KILLED:
      return info->si_status & 0x7f;

    case CLD_DUMPED:
      return (info->si_status & 0x7f) | WCOREFLAG;

    default:
      return -1;
    }
}

/* Peeks at the exited child @id (a pidfd with P_PIDFD, else a pid) with
 * waitid(): 0 and @info filled if it is an unreaped zombie, 0 and si_pid 0
 * if not (yet), -1 and errno if waitid() refuses. WNOWAIT: the process
 * stays a zombie for whoever reaps it (GSubprocess, g_child_watch_add or
 * the application itself). */
static int
peek_exited_child (idtype_t   idtype,
                   id_t       id,
                   siginfo_t *info)
{
  memset (info, 0, sizeof *info);
  return waitid (idtype, id, info, WEXITED | WNOWAIT | WNOHANG | __WALL);
}

/* The status of a zombie child, peeked at through its pidfd (@idtype
 * P_PIDFD: @handle holds a pidfd) or by pid number (P_PID). By pid number
 * it is safe only while our handle shows the process unreaped: until then
 * the pid is its. */
gboolean
procwatch_read_child_status (const ProcwatchBackend *backend,
                             const ProcwatchHandle  *handle,
                             idtype_t                idtype,
                             int                    *wait_status)
{
  siginfo_t info;

  if (idtype == P_PIDFD && peek_exited_child (P_PIDFD, handle->fd, &info) < 0)
    {
      /* Linux 5.3 has pidfds but no P_PIDFD. */
      if (errno != EINVAL)
        return FALSE;

      idtype = P_PID;
    }

  if (idtype == P_PID &&
      (handle->pid <= 0 || peek_exited_child (P_PID, handle->pid, &info) < 0))
    return FALSE;

  if (info.si_pid == 0)
    return FALSE;

  if (idtype == P_PID &&
      backend->read_state (backend, handle, 0) == PROCWATCH_PROCESS_STATE_REAPED)
    return FALSE;

  *wait_status = wait_status_from_siginfo (&info);
  return *wait_status != -1;
}

/* Whether the process of @pidfd is a child of ours now. @pid, its pid in
 * our namespace or 0, is asked of /proc where the kernel cannot tell
 * (before 6.13); the answer is ours only while the pidfd shows the process
 * unreaped, as the pid could be reused after that. */
static gboolean
parent_is_us (int  pidfd,
              GPid pid)
{
  struct procwatch_pidfd_info info;
  GPid ppid = 0;

  if (procwatch_pidfd_get_info (pidfd, PIDFD_INFO_PID, &info))
    return (GPid) info.ppid == procwatch_self_pid ();

  return pid > 0 &&
         procwatch_proc_read_ppid (pid, &ppid) && ppid == procwatch_self_pid () &&
         !procwatch_pidfd_is_reaped (pidfd);
}

/* Whether procwatch_pidfd_check_watched () finds cgroup ids: 0 until it
 * has asked, then 1 or -1 (an ESRCH tells nothing: see there). */
static gint tells_cgroup_id;

gint
procwatch_pidfd_tells_cgroup_id (void)
{
  return g_atomic_int_get (&tells_cgroup_id);
}

/* What a watch asks of @pidfd (of the process whose pid is @pid) once it
 * has read what it keeps of the process by pid: whether the process is
 * still unreaped, so that its pid could not have named another during the
 * reads; whether it is our child (if @child is not NULL); and the id of
 * its cgroup v2 (0 if not told). Where the kernel has PIDFD_GET_INFO
 * (6.13+), one ioctl says all three: it finds the process only until the
 * reap. It also fails for a process whose parent we cannot see (one
 * entered into our pid namespace from outside): then, as before 6.13,
 * waitid () on the pidfd finds a child of ours (of any of our threads),
 * running or a zombie, and so unreaped; anything else is ECHILD, and the
 * reap is asked with signal 0. No /proc file is read for either: each
 * would cost a path walk, and a dentry and an inode the kernel keeps as
 * long as the process lives (a tracee of ours is found as a child, as
 * waitid () would give us its status too). Only Linux 5.3, without
 * P_PIDFD, reads the parent from /proc. */
gboolean
procwatch_pidfd_check_watched (int       pidfd,
                               GPid      pid,
                               gboolean *child,
                               guint64  *cgroup_id)
{
  struct procwatch_pidfd_info info;
  siginfo_t found;
  gboolean ppid_read;
  gboolean answered;
  gboolean reaped;
  GPid ppid = 0;

  *cgroup_id = 0;

  errno = 0;
  answered = procwatch_pidfd_get_info (pidfd, PIDFD_INFO_PID | PIDFD_INFO_CGROUPID, &info) &&
             (info.mask & PIDFD_INFO_PID);
  if (answered || errno != ESRCH)
    g_atomic_int_set (&tells_cgroup_id, answered && (info.mask & PIDFD_INFO_CGROUPID) ? 1 : -1);

  if (answered)
    {
      if (child != NULL)
        *child = (GPid) info.ppid == procwatch_self_pid ();
      if (info.mask & PIDFD_INFO_CGROUPID)
        *cgroup_id = info.cgroupid;
      return TRUE;
    }

  if (child != NULL)
    {
      if (peek_exited_child (P_PIDFD, pidfd, &found) == 0)
        {
          *child = TRUE;
          return TRUE;
        }

      if (errno == ECHILD)
        {
          *child = FALSE;
          return !procwatch_pidfd_is_reaped (pidfd);
        }
    }

  /* As parent_is_us () does without PIDFD_GET_INFO, with one signal 0
   * for both answers. */
  ppid_read = child != NULL && pid > 0 && procwatch_proc_read_ppid (pid, &ppid);
  reaped = procwatch_pidfd_is_reaped (pidfd);
  if (child != NULL)
    *child = ppid_read && ppid == procwatch_self_pid () && !reaped;

  return !reaped;
}

/* A pidfd of the process or thread @pid, or -1. */
static int
open_task_pidfd (GPid     pid,
                 GError **error)
{
  int saved_errno;
  GPid tgid = 0;
  int fd;

  fd = procwatch_pidfd_open (pid, 0);
  if (fd >= 0)
    return fd;

  saved_errno = errno;

  /* A thread that does not lead its thread group: ENOENT since Linux 6.9,
   * EINVAL before. It is watched through a thread pidfd (Linux 6.9+). */
  if (saved_errno == ENOENT || saved_errno == EINVAL)
    {
      fd = procwatch_pidfd_open (pid, PIDFD_THREAD);
      if (fd >= 0)
        return fd;

      if (errno == EINVAL && procwatch_proc_read_tgid (pid, &tgid) && tgid != pid)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("Cannot watch thread %d of process %d: watching a thread "
                         "needs Linux 6.9 (PIDFD_THREAD)"), (int) pid, (int) tgid);
          return -1;
        }

      if (saved_errno == ENOENT)
        saved_errno = ESRCH;
    }

  if (saved_errno == ESRCH)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("Cannot watch process %d: no such process"), (int) pid);
  else
    procwatch_set_error_from_errno (error, saved_errno, pid, "pidfd_open");

  return -1;
}

/* Whether the process is our child is not asked here: the watch asks it
 * after it has read the name (procwatch_handle_read_identity ()), in the
 * same PIDFD_GET_INFO that shows the process unreaped after the read. A
 * handle that turns out to name a process watched already is closed
 * without either. */
static gboolean
pidfd_open_pid (const ProcwatchBackend  *backend,
                GPid                     pid,
                ProcwatchHandle         *handle,
                GError                 **error)
{
  int fd = open_task_pidfd (pid, error);

  if (fd < 0)
    return FALSE;

  procwatch_handle_set (handle, fd, pid, pidfs_present ? pidfs_inode (fd) : 0);
  return TRUE;
}

/* As with a pid, whether the process is our child is asked by the watch
 * (procwatch_handle_read_identity ()) when there is a pid to read by; a
 * pidfd with none names a process reaped already, or one we cannot see,
 * and neither is a child we could wait for. */
static gboolean
pidfd_open_pidfd (const ProcwatchBackend  *backend,
                  int                      pidfd,
                  ProcwatchHandle         *handle,
                  GError                 **error)
{
  guint64 inode = 0;
  GPid pid = 0;
  int fd = procwatch_pidfd_dup (pidfd, &pid, &inode, error);

  if (fd < 0)
    return FALSE;

  procwatch_handle_set (handle, fd, pid, inode);
  return TRUE;
}

static guint32
pidfd_events_for (const ProcwatchBackend *backend,
                  ProcwatchProcessState   state)
{
  /* Once exited, the pidfd stays readable: only the hang-up is news. */
  return state == PROCWATCH_PROCESS_STATE_RUNNING ? EPOLLIN : 0;
}

static gboolean
pidfd_needs_probe (const ProcwatchBackend *backend,
                   ProcwatchProcessState   state)
{
  return state == PROCWATCH_PROCESS_STATE_EXITED && !reap_raises_hup;
}

/* Whether /proc shows the process of @handle as a zombie (state Z), read by
 * pid number and so trusted only while the pidfd shows it unreaped. */
static gboolean
is_zombie (const ProcwatchHandle *handle)
{
  char path[64];
  char text[1024];
  gint64 num_threads;
  gssize length;
  gboolean own_proc = FALSE;
  char state;

  if (handle->pid <= 0 || !procwatch_proc_is_own_pid_ns (&own_proc) || !own_proc)
    return FALSE;

  g_snprintf (path, sizeof path, "/proc/%d/stat", (int) handle->pid);
  length = procwatch_proc_read_file (path, text, sizeof text);

  return length > 0 &&
         procwatch_proc_parse_stat (text, length, &state, &num_threads) &&
         state == 'Z' &&
         !procwatch_pidfd_is_reaped (handle->fd);
}

/* Whether @handle is a child of ours that has exited, but whose exit cannot
 * be reported with its status yet: another thread of ours (GLib's child
 * watch, GSubprocess, a waitpid (-1) loop) has begun to reap it, so
 * waitid() no longer finds it, and the kernel records the status for pidfd
 * holders only as the reap ends, a moment before the pidfd hangs up. Until
 * then the exit is not news: a child's status is promised with "exited".
 * Where the kernel never records it (before 6.15) the wait ends with the
 * hang-up all the same, without a status.
 *
 * A zombie found here has its status noted in @handle at once: the reap may
 * begin right after this look, before read_status() could look again, and
 * then nothing would tell the status until the reap ends. */
static gboolean
child_exit_pending (ProcwatchHandle *handle)
{
  struct procwatch_pidfd_info pidfd_info;
  gboolean none_of_ours = FALSE;
  gboolean answered = FALSE;
  siginfo_t info;
  int wait_status;

  /* Seen once, the exit is reported with that status (or without one, for
   * a non-child), whatever the reap does since. */
  if (handle->exit_status_seen || handle->exit_status_at_reap)
    return FALSE;

  /* Not our child when watched: one question (Linux 6.13+) tells whether
   * it has become ours since (an orphan given to us as a subreaper, or as
   * the init of its pid namespace) and, if it was reaped meanwhile, its
   * status. Usually neither: its exit is news, its status comes with the
   * reap, and no waitid () is spent on it. */
  if (!handle->child &&
      procwatch_pidfd_get_info (handle->fd, PIDFD_INFO_PID | PIDFD_INFO_EXIT | PIDFD_INFO_COREDUMP,
                                &pidfd_info))
    {
      answered = TRUE;
      if (pidfd_info.mask & PIDFD_INFO_EXIT)
        {
          handle->exit_status = status_of_info (&pidfd_info);
          handle->exit_status_seen = TRUE;
          return FALSE;
        }

      if ((GPid) pidfd_info.ppid != procwatch_self_pid ())
        {
          handle->exit_status_at_reap = TRUE;
          return FALSE;
        }
    }

  if (peek_exited_child (P_PIDFD, handle->fd, &info) == 0)
    {
      if (info.si_pid != 0)
        {
          wait_status = wait_status_from_siginfo (&info);
          if (wait_status != -1)
            {
              handle->exit_status = wait_status;
              handle->exit_status_seen = TRUE;
            }
          return FALSE;
        }
    }
  else if (errno == EINVAL)
    {
      /* Linux 5.3 has no P_PIDFD: nothing we could wait for. */
      return FALSE;
    }
  else if (errno == ECHILD)
    {
      none_of_ours = TRUE;
    }

  if (procwatch_pidfd_read_exit_status (handle->fd, &wait_status))
    return FALSE;

  /* A subreaper may have adopted it since it was watched. Where the kernel
   * did not answer above (before 6.13), the ECHILD of waitid () says that
   * it is none of our children: its parent is not read from /proc at every
   * exit, and read_status () need not ask waitid () again. Where it
   * answered, the parent it gave stands: a child of ours that another of
   * our threads is reaping is ECHILD to waitid () too. */
  if (!handle->child && none_of_ours && !answered)
    {
      handle->exit_status_at_reap = TRUE;
      return FALSE;
    }

  if (!handle->child && !parent_is_us (handle->fd, handle->pid))
    return FALSE;

  /* A zombie that a tracer other than us holds is hidden from waitid()
   * until the tracer lets go, which may take long: that exit is reported
   * now, without a status. A reap under way shows state X (dead). */
  return !is_zombie (handle);
}

static ProcwatchProcessState
pidfd_read_state (const ProcwatchBackend *backend,
                  const ProcwatchHandle  *handle,
                  guint32                 revents)
{
  if (!reap_raises_hup)
    {
      /* Events are hints only: a hang-up, if the kernel sends one anyway,
       * comes without EPOLLIN once exited. Ask the kernel. */
      if (procwatch_pidfd_is_reaped (handle->fd))
        return PROCWATCH_PROCESS_STATE_REAPED;

      /* Exited for good: one syscall per probe, not two. */
      if (revents & PROCWATCH_PROBE_EXITED)
        return PROCWATCH_PROCESS_STATE_EXITED;

      revents = procwatch_handle_poll (handle);
    }
  else if (revents == 0 || (revents & PROCWATCH_PROBE_EXITED))
    {
      revents = procwatch_handle_poll (handle);
    }

  if (revents & EPOLLHUP)
    return PROCWATCH_PROCESS_STATE_REAPED;

  /* The handle is const to the backend interface; only its noted status
   * changes here (see ProcwatchHandle). */
  if ((revents & EPOLLIN) && !child_exit_pending ((ProcwatchHandle *) handle))
    return PROCWATCH_PROCESS_STATE_EXITED;

  return PROCWATCH_PROCESS_STATE_RUNNING;
}

/* The wait status the kernel keeps for a reaped process (Linux 6.15+), for
 * any holder of a pidfd opened before the reap. */
gboolean
procwatch_pidfd_read_exit_status (int  pidfd,
                                  int *wait_status)
{
  struct procwatch_pidfd_info info;

  if (!procwatch_pidfd_get_info (pidfd, PIDFD_INFO_EXIT | PIDFD_INFO_COREDUMP, &info) ||
      !(info.mask & PIDFD_INFO_EXIT))
    return FALSE;

  *wait_status = status_of_info (&info);
  return TRUE;
}

static gboolean
pidfd_read_status (const ProcwatchBackend *backend,
                   const ProcwatchHandle  *handle,
                   ProcwatchProcessState   state,
                   int                    *wait_status)
{
  if (state == PROCWATCH_PROCESS_STATE_RUNNING)
    return FALSE;

  /* What read_state() saw of the zombie: the reap may have begun since. */
  if (handle->exit_status_seen)
    {
      *wait_status = handle->exit_status;
      return TRUE;
    }

  /* read_state() found it no child of ours: nothing to peek at. */
  if (state == PROCWATCH_PROCESS_STATE_EXITED && handle->exit_status_at_reap)
    return FALSE;

  /* A zombie child that read_state() could not peek at: Linux 5.3 has no
   * P_PIDFD, and waitid() falls back to the pid. */
  if (state == PROCWATCH_PROCESS_STATE_EXITED &&
      procwatch_read_child_status (backend, handle, P_PIDFD, wait_status))
    return TRUE;

  /* Reaped already, by anyone: the status the kernel keeps. */
  return procwatch_pidfd_read_exit_status (handle->fd, wait_status);
}

/* Whether uname ()'s release is @major.@minor or later: the last resort,
 * for what no kernel call tells. */
static gboolean
kernel_release_at_least (guint major,
                         guint minor)
{
  struct utsname name;
  const char *release = NULL;
  guint64 found_major, found_minor;
  char *end;

#ifdef PROCWATCH_TEST_SEAM
  release = procwatch_test_seam_kernel_release;
#endif
  if (release == NULL && uname (&name) == 0)
    release = name.release;
  if (release == NULL)
    return FALSE;

  found_major = g_ascii_strtoull (release, &end, 10);
  if (*end != '.')
    return FALSE;
  found_minor = g_ascii_strtoull (end + 1, NULL, 10);

  return found_major > major || (found_major == major && found_minor >= minor);
}

/* Whether the kernel keeps the status of a reaped process for pidfd
 * holders (PIDFD_INFO_EXIT, Linux 6.15), asked of @pidfd, one of a live
 * process: such a pidfd never answers EXIT, so the answer is found around
 * it. A kernel that lists what it supports (6.19) says so; one that echoes
 * PIDFD_INFO_COREDUMP for a live process is 6.16 or later; one that
 * answers PIDFD_GET_INFO at all is 6.13 or later, and only its release
 * tells 6.15 from 6.13 and 6.14. */
static gboolean
kernel_keeps_exit_status (int pidfd)
{
  struct procwatch_pidfd_info info;

  if (!procwatch_pidfd_get_info (pidfd, PIDFD_INFO_PID | PIDFD_INFO_EXIT | PIDFD_INFO_COREDUMP |
                                        PIDFD_INFO_SUPPORTED_MASK, &info))
    return FALSE;

  if (info.mask & PIDFD_INFO_SUPPORTED_MASK)
    return (info.supported_mask & PIDFD_INFO_EXIT) != 0;

  if (info.mask & PIDFD_INFO_COREDUMP)
    return TRUE;

  return kernel_release_at_least (6, 15);
}

/* Whether the kernel names @pidfd's process by a pidfs file handle (Linux
 * 6.14) and opens one again: with FD_PIDFS_ROOT (6.17), else with a pidfd
 * as the mount fd. */
static gboolean
kernel_has_file_handles (int pidfd)
{
  struct
  {
    struct file_handle handle;
    unsigned char bytes[MAX_HANDLE_SZ];
  } name;
  int mount_id;
  int fd;

  memset (&name, 0, sizeof name);
  name.handle.handle_bytes = MAX_HANDLE_SZ;
  if (name_to_handle_at (pidfd, "", &name.handle, &mount_id, AT_EMPTY_PATH) != 0)
    return FALSE;

  fd = open_by_handle_at (FD_PIDFS_ROOT, &name.handle, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == EBADF)
    fd = open_by_handle_at (pidfd, &name.handle, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;

  close (fd);
  return TRUE;
}

/* What the pidfd backend delivers here, asked of a pidfd of our own
 * process: no process is started (see pidfd_is_supported ()). */
static ProcwatchFeatures
pidfd_probe_features (const ProcwatchBackend *backend)
{
  ProcwatchFeatures features = PROCWATCH_FEATURES_NONE;
  int pidfd;
  int thread_pidfd;

  pidfd = procwatch_pidfd_open (getpid (), 0);
  if (pidfd < 0)
    return features;

  if (reap_raises_hup)
    features |= PROCWATCH_FEATURES_REAP_EVENT;

  /* The inode numbers are those of pidfs (6.9); 32-bit ones are reused. */
  if (fd_is_on_pidfs (pidfd) && pidfs_inode (pidfd) != 0)
    features |= PROCWATCH_FEATURES_INODE;

  /* The core flag comes with the wait status. */
  if (kernel_keeps_exit_status (pidfd))
    features |= PROCWATCH_FEATURES_NON_CHILD_STATUS | PROCWATCH_FEATURES_CORE_DUMP;

  if (!pidfs_hidden && kernel_has_file_handles (pidfd))
    features |= PROCWATCH_FEATURES_FILE_HANDLES;

  /* Our main thread is a thread: EINVAL before 6.9. */
  thread_pidfd = procwatch_pidfd_open (getpid (), PIDFD_THREAD);
  if (thread_pidfd >= 0)
    {
      features |= PROCWATCH_FEATURES_THREADS;
      close (thread_pidfd);
    }

  close (pidfd);
  return features;
}

const ProcwatchBackend procwatch_backend_pidfd = {
  .name = "pidfd",
  .is_supported = pidfd_is_supported,
  .handles_pollable = TRUE,
  .handle_fd_is_pidfd = TRUE,
  .probe_min_interval = 1 * G_TIME_SPAN_MILLISECOND,
  .probe_max_interval = 500 * G_TIME_SPAN_MILLISECOND,
  .open_pid = pidfd_open_pid,
  .open_pidfd = pidfd_open_pidfd,
  .events_for = pidfd_events_for,
  .needs_probe = pidfd_needs_probe,
  .read_state = pidfd_read_state,
  .read_status = pidfd_read_status,
  .probe_features = pidfd_probe_features,
};
