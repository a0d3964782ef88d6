/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The harness every measurement of procwatch-bench shares: the options, the
 * JSON records, the clocks, the monitor and the raw-epoll floor as several
 * measurements watch with them, and the worker processes that let peers take
 * turns without sharing one RLIMIT_NOFILE. Whatever only one measurement
 * uses lives in its own file.
 */

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

/* Options shared by the subcommands. */
int opt_rounds = 20;
int opt_n = 1000;
int opt_iters = 200;
int opt_blocks = 10;
char *opt_peers;
char *opt_layouts;
char *opt_sizes;
char *opt_label;
char *opt_expect_backend;
char *opt_psutil_script;
char *opt_python;
char *opt_mode;
char *opt_out;
char *opt_valgrind;
char *opt_shim;
int opt_fd_base = -1;
int opt_ctl_fd = -1;
int opt_max_delay_us = 20000;
gboolean opt_delay_in_loop;
gboolean opt_reaped;
char *opt_sleepers;
gboolean opt_drop_caches;

/* Output */

void
print_samples (const char   *bench,
               const char   *fields,
               const gint64 *values,
               guint         n_values)
{
  g_autoptr(GString) line = g_string_new (NULL);
  guint i;

  g_string_append_printf (line, "{\"bench\": \"%s\", \"label\": \"%s\", %s, \"ns\": [",
                          bench, opt_label != NULL ? opt_label : "", fields);
  for (i = 0; i < n_values; i++)
    g_string_append_printf (line, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", values[i]);
  g_string_append (line, "]}\n");

  fputs (line->str, stdout);
  fflush (stdout);
}

void
print_line (const char *format,
            ...)
{
  va_list args;

  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  fflush (stdout);
}

gboolean
list_has (const char *list,
          const char *item)
{
  g_auto(GStrv) items = NULL;

  if (list == NULL)
    return TRUE;

  items = g_strsplit (list, ",", -1);
  return g_strv_contains ((const char * const *) items, item);
}

gint64
cpu_ns (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * G_GINT64_CONSTANT (1000000000) +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * G_GINT64_CONSTANT (1000);
}

/* Whether the monitor uses the backend the run asked for; says so if not. */
gboolean
monitor_backend_ok (ProcwatchProcessMonitor *monitor)
{
  const char *backend = procwatch_process_monitor_get_backend (monitor);
  gboolean ok = opt_expect_backend == NULL || g_strcmp0 (backend, opt_expect_backend) == 0;
  g_autofree char *features = g_flags_to_string (PROCWATCH_TYPE_FEATURES,
                                                 procwatch_process_monitor_get_features (monitor));

  /* The features say what the kernel gives (bench/run --guest-kernels). */
  print_line ("{\"bench\": \"backend\", \"label\": \"%s\", \"requested\": \"%s\", "
              "\"got\": \"%s\", \"available\": %s, \"features\": \"%s\"}",
              opt_label != NULL ? opt_label : "",
              opt_expect_backend != NULL ? opt_expect_backend : "",
              backend, ok ? "true" : "false", features);
  return ok;
}

static void
on_counter_exited (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   Counter                 *counter)
{
  gint64 now = bench_now_ns ();

  if (counter->pid != 0 && procwatch_process_get_pid (process) != counter->pid)
    return;

  counter->exited_ns = now;
  counter->n_exited++;
}

void
on_counter_reaped (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   Counter                 *counter)
{
  counter->reaped_ns = bench_now_ns ();
  counter->n_reaped++;
}

ProcwatchProcessMonitor *
counting_monitor_new (Counter *counter)
{
  ProcwatchProcessMonitor *monitor = procwatch_process_monitor_new ();

  g_signal_connect (monitor, "exited", G_CALLBACK (on_counter_exited), counter);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_counter_reaped), counter);
  return monitor;
}

const char *peer_names[N_PEERS] = {
  "epoll", "epollsource", "monitor", "fdsource", "childwatch", "poll10ms", "psutil", "pidwait",
};

static gboolean
on_loop_deadline (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop for @us, as an application does while it waits, and
 * counts its iterations into @iterations (if not NULL). */
void
run_loop_for (gint64  us,
              guint  *iterations)
{
  gboolean done = FALSE;
  GSource *deadline = g_timeout_source_new (us / 1000);

  g_source_set_callback (deadline, on_loop_deadline, &done, NULL);
  g_source_attach (deadline, NULL);
  while (!done)
    {
      g_main_context_iteration (NULL, TRUE);
      if (iterations != NULL)
        (*iterations)++;
    }
  g_source_destroy (deadline);
  g_source_unref (deadline);
}

gint64 last_poll_return_ns;

int
timed_poll (GPollFD *fds,
            guint    n_fds,
            int      timeout)
{
  int ret = g_poll (fds, n_fds, timeout);

  last_poll_return_ns = bench_now_ns ();
  return ret;
}

/* The fds the main loop polled last, recorded by recording_poll (), so that
 * context_has_pending () can tell whether an iteration would do anything
 * without running one: the exit cost's settling (callgrind) and the
 * syscalls' probes both ask it. */

static GPollFD *settle_fds;
static guint settle_n_fds;

int
recording_poll (GPollFD *fds,
                guint    n_fds,
                int      timeout)
{
  settle_fds = fds;
  settle_n_fds = n_fds;
  return g_poll (fds, n_fds, timeout);
}

gboolean
context_has_pending (void)
{
  struct pollfd fds[64];
  guint n = MIN (settle_n_fds, G_N_ELEMENTS (fds));
  guint i;

  for (i = 0; i < n; i++)
    fds[i] = (struct pollfd) { settle_fds[i].fd, settle_fds[i].events, 0 };

  if (n == 0 || poll (fds, n, 0) <= 0)
    return FALSE;

  /* Not a source's fd closed since (POLLNVAL): nothing waits on it. */
  for (i = 0; i < n; i++)
    if (fds[i].revents != 0 && !(fds[i].revents & POLLNVAL))
      return TRUE;

  return FALSE;
}

gboolean
keep_idle (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

gboolean
on_idle_fd (int           fd,
            GIOCondition  condition,
            gpointer      user_data)
{
  return G_SOURCE_CONTINUE;
}

GArray *
parse_sizes (const char *text,
             const char *fallback)
{
  g_auto(GStrv) items = g_strsplit (text != NULL ? text : fallback, ",", -1);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  guint i;

  for (i = 0; items[i] != NULL; i++)
    {
      guint size = (guint) g_ascii_strtoull (items[i], NULL, 10);

      g_array_append_val (sizes, size);
    }
  return sizes;
}

/* Forks a worker: returns TRUE in the worker, with its ends of the pipes. */
gboolean
worker_fork (Worker *worker,
             int    *command_fd,
             int    *ack_fd)
{
  int command[2];
  int ack[2];

  g_assert (pipe2 (command, O_CLOEXEC) == 0);
  g_assert (pipe2 (ack, O_CLOEXEC) == 0);

  fflush (stdout);
  worker->pid = fork ();
  g_assert (worker->pid >= 0);
  if (worker->pid == 0)
    {
      close (command[1]);
      close (ack[0]);
      *command_fd = command[0];
      *ack_fd = ack[1];
      return TRUE;
    }

  close (command[0]);
  close (ack[1]);
  worker->command_fd = command[1];
  worker->ack_fd = ack[0];
  return FALSE;
}

gboolean
worker_ask (Worker *worker,
            char    expected)
{
  char reply = 0;

  if (expected == 'd')
    io_write_all (worker->command_fd, "b", 1);

  return io_read_all (worker->ack_fd, &reply, 1) && reply == expected;
}

/* Told in words: a later worker may hold a copy of this one's pipe. */
void
worker_stop (Worker *worker)
{
  io_write_all (worker->command_fd, "q", 1);
  close (worker->command_fd);
  close (worker->ack_fd);
  waitpid (worker->pid, NULL, 0);
}

void
fd_watch_exited (FdWatch *watch)
{
  if (!watch->exited)
    {
      watch->exited = TRUE;
      watch->counter->n_exited++;
      watch->counter->exited_ns = bench_now_ns ();
    }
}

/* The floor: what a program does with one epoll fd and nothing else. */
void
epoll_handle (int                 epoll_fd,
              FdWatch            *watches,
              struct epoll_event *event)
{
  FdWatch *watch = &watches[event->data.u32];

  if (event->events & EPOLLIN)
    fd_watch_exited (watch);

  if (event->events & (EPOLLHUP | EPOLLERR))
    {
      fd_watch_exited (watch);
      watch->counter->n_reaped++;
      watch->counter->reaped_ns = bench_now_ns ();
      epoll_ctl (epoll_fd, EPOLL_CTL_DEL, watch->fd, NULL);
      close (watch->fd);
      watch->fd = -1;
    }
  else
    {
      struct epoll_event only_hup = { .events = 0, .data.u32 = event->data.u32 };

      epoll_ctl (epoll_fd, EPOLL_CTL_MOD, watch->fd, &only_hup);
    }
}

int
epoll_watch_all (FdWatch    *watches,
                 const GPid *pids,
                 guint       n,
                 Counter    *counter)
{
  int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  guint i;

  for (i = 0; i < n; i++)
    {
      struct epoll_event event = { .events = EPOLLIN, .data.u32 = i };

      watches[i].fd = bench_pidfd_open (pids[i]);
      watches[i].counter = counter;
      if (watches[i].fd < 0 || epoll_ctl (epoll_fd, EPOLL_CTL_ADD, watches[i].fd, &event) < 0)
        g_error ("procwatch-bench: cannot watch %d: %s", (int) pids[i], g_strerror (errno));
    }
  return epoll_fd;
}

/* "One epoll source": the epoll fd on the main loop, as the library does,
 * but with nothing else. */
gboolean
on_epoll_ready (int           fd,
                GIOCondition  condition,
                gpointer      user_data)
{
  EpollSource *source = user_data;
  struct epoll_event events[EPOLL_BATCH];
  int n = epoll_wait (source->epoll_fd, events, EPOLL_BATCH, 0);
  int i;

  for (i = 0; i < n; i++)
    epoll_handle (source->epoll_fd, source->watches, &events[i]);

  return G_SOURCE_CONTINUE;
}

/* A "Name:   N kB" line of @text, a /proc file's, in bytes; -1 if there
 * is none. */
gint64
kib_field_of (const char *text,
              const char *name)
{
  g_autofree char *key = g_strdup_printf ("\n%s:", name);
  const char *line = strstr (text, key);

  if (line == NULL)
    return -1;

  return g_ascii_strtoll (line + strlen (key), NULL, 10) * 1024;
}

/* The same of the file at @path. */
gint64
proc_kib_field (const char *path,
                const char *name)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return -1;

  return kib_field_of (text, name);
}

gint64
heap_bytes (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return (gint64) (info.uordblks + info.hblkhd);
}

gboolean
raise_fd_limit_to (rlim_t needed)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
    return FALSE;
  if (limit.rlim_max < needed)
    limit.rlim_max = needed;
  limit.rlim_cur = limit.rlim_max;

  return setrlimit (RLIMIT_NOFILE, &limit) == 0;
}

void
on_list_items_changed (GListModel *model,
                       guint       position,
                       guint       removed,
                       guint       added,
                       gpointer    user_data)
{
}
