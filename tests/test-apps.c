/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Applications as cgroups: application ids read from unit names, the
 * instances of an app found in a fake user manager's tree, and a signal
 * sent to every process of a cgroup tree, on real processes in real
 * cgroups. Every cgroup made lies below the run's root cgroup, which a
 * supervising parent thaws, empties and removes, also when a test fails
 * (procwatch-test-cgroup.c). Built against the internals for the test
 * seams of the freeze.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio-procwatch/procwatch.h>

#include "procwatch-apps-private.h"
#include "procwatch-cgroup-files-private.h"
#include "procwatch-cgroup-private.h"
#include "procwatch-test-cgroup.h"
#include "procwatch-test-seam-private.h"
#include "procwatch-test-util.h"


/* Where cgroups cannot be made: skipped, or failed with
 * PROCWATCH_TEST_REQUIRE_CGROUP=1. */
static gboolean
skip_without_cgroups (void)
{
  return test_cgroups_skip ();
}

static void
put (const char *absolute,
     const char *file,
     const char *text)
{
  g_autofree char *path = g_build_filename (absolute, file, NULL);
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  g_assert_no_errno (fd < 0 ? -1 : 0);
  g_assert_cmpint (write (fd, text, strlen (text)), ==, strlen (text));
  close (fd);
}

static char *
get (const char *absolute,
     const char *file)
{
  g_autofree char *path = g_build_filename (absolute, file, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return g_strchomp (text);
}

/* A cgroup of the test at @name (with its parents) below the run's root
 * cgroup; returns its absolute path; *@relative gets the other form. */
static char *
make_cgroup (const char  *name,
             char       **relative)
{
  char *absolute = g_build_filename (test_cgroups_get_directory (), name, NULL);

  g_assert_no_errno (g_mkdir_with_parents (absolute, 0755));
  if (relative != NULL)
    *relative = g_build_filename (test_cgroups_get_root (), name, NULL);
  return absolute;
}

typedef enum
{
  BEHAVE_PAUSE,         /* waits; SIGTERM ends it */
  BEHAVE_IGNORE_TERM,
  BEHAVE_NOTE_TERM,     /* writes a byte to its note pipe at each SIGTERM */
  BEHAVE_STORM,         /* forks a waiting child every millisecond */
  BEHAVE_HOP,           /* forks a successor and exits, every 2 ms, for ever */
} Behaviour;

static int note_fd = -1;

static void
on_term_note (int signum)
{
  char byte = 'T';

  (void) !write (note_fd, &byte, 1);
}

/* A child of the test that joins @absolute itself, says so on a pipe, then
 * behaves. *@note gets the read end of its note pipe if asked. */
static GPid
spawn_in (const char *absolute,
          Behaviour   behaviour,
          int        *note)
{
  int ready[2];
  int notes[2] = { -1, -1 };
  char byte;
  GPid pid;

  g_assert_no_errno (pipe2 (ready, O_CLOEXEC));
  if (note != NULL)
    g_assert_no_errno (pipe2 (notes, O_CLOEXEC));

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autofree char *procs = g_build_filename (absolute, "cgroup.procs", NULL);
      int fd = open (procs, O_WRONLY);
      guint forks = 0;

      if (fd < 0 || write (fd, "0", 1) != 1)
        _exit (111);
      close (fd);

      if (behaviour == BEHAVE_IGNORE_TERM)
        signal (SIGTERM, SIG_IGN);
      if (behaviour == BEHAVE_NOTE_TERM)
        {
          struct sigaction action = { .sa_handler = on_term_note, .sa_flags = SA_RESTART };

          note_fd = notes[1];
          sigaction (SIGTERM, &action, NULL);
        }

      if (behaviour != BEHAVE_STORM)
        (void) !write (ready[1], "r", 1);

      /* Bounded, so that a shared machine keeps pids to spare; its
       * children stay (in pause) to be signalled too. Ready once it is
       * under way. */
      while (behaviour == BEHAVE_STORM && forks++ < 2000)
        {
          if (fork () == 0)
            for (;;)
              pause ();
          if (forks == 10)
            (void) !write (ready[1], "r", 1);
          g_usleep (1000);
        }

      /* A process that no listing of cgroup.procs holds for long: one
       * missed by a signal goes on under a new pid. */
      while (behaviour == BEHAVE_HOP)
        {
          if (fork () > 0)
            _exit (0);
        }

      for (;;)
        pause ();
    }

  close (ready[1]);
  if (note != NULL)
    {
      close (notes[1]);
      *note = notes[0];
    }
  g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
  close (ready[0]);

  return pid;
}

/* Whether @signum is pending for @pid (it is frozen, or ignores nothing). */
static gboolean
signal_pending (GPid pid,
                int  signum)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *text = NULL;
  const char *fields[] = { "\nSigPnd:\t", "\nShdPnd:\t" };
  guint i;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  for (i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *value = strstr (text, fields[i]);
      guint64 mask;

      g_assert_nonnull (value);
      mask = g_ascii_strtoull (value + strlen (fields[i]), NULL, 16);
      if (mask & (G_GUINT64_CONSTANT (1) << (signum - 1)))
        return TRUE;
    }

  return FALSE;
}

/* Blocks (bounded) until @fd has a byte; returns it. */
static char
await_note (int fd)
{
  struct pollfd pfd = { fd, POLLIN, 0 };
  char byte = 0;

  g_assert_cmpint (poll (&pfd, 1, 30000), ==, 1);
  g_assert_cmpint (read (fd, &byte, 1), ==, 1);
  return byte;
}

static int
reap (GPid pid)
{
  int status;

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return status;
}

/* Orphans of storms: the test is their subreaper. */
static void
reap_orphans (void)
{
  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
}

static ProcwatchCgroup *
watch (ProcwatchProcessMonitor *monitor,
       const char              *path)
{
  g_autoptr(GError) error = NULL;
  ProcwatchCgroup *cgroup = procwatch_process_monitor_watch_cgroup (monitor, path, &error);

  g_assert_no_error (error);
  return cgroup;
}

/* One signal, sent and awaited. */
typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
  gboolean in_call;
  gint64 done_at;
} Sent;

static void
on_sent (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Sent *sent = user_data;

  g_assert_false (sent->in_call);
  sent->ok = procwatch_cgroup_send_signal_finish (PROCWATCH_CGROUP (object), result, &sent->error);
  g_assert_true (sent->ok == (sent->error == NULL));
  sent->done_at = g_get_monotonic_time ();
  sent->done = TRUE;
}

static void
start_send (ProcwatchCgroup *cgroup,
            int              signum,
            GCancellable    *cancellable,
            Sent            *sent)
{
  memset (sent, 0, sizeof *sent);
  sent->in_call = TRUE;
  procwatch_cgroup_send_signal_async (cgroup, signum, cancellable, on_sent, sent);
  sent->in_call = FALSE;
  g_assert_false (sent->done);
}

static void
send_and_wait (ProcwatchCgroup *cgroup,
               int              signum,
               Sent            *sent)
{
  start_send (cgroup, signum, NULL, sent);
  test_run_until (NULL, &sent->done);
}

static void
on_empty (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (procwatch_cgroup_wait_empty_finish (PROCWATCH_CGROUP (object), result, &error));
  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

static void
wait_empty (ProcwatchCgroup *cgroup)
{
  gboolean empty = FALSE;

  procwatch_cgroup_wait_empty_async (cgroup, NULL, on_empty, &empty);
  test_run_until (NULL, &empty);
}

/* The standard's forms, the launchers of GNOME Shell and Flatpak, escaped
 * ids, and names that are not an application's. */
static void
test_app_id_parse (void)
{
  const struct { const char *name; const char *app_id; } cases[] = {
    { "app-gnome-org.gnome.Calculator-4242.scope", "org.gnome.Calculator" },
    { "app-flatpak-org.gnome.Calculator-12.scope", "org.gnome.Calculator" },
    { "app-org.gnome.Calculator-1.scope", "org.gnome.Calculator" },
    { "app-org.gnome.Calculator@abc.service", "org.gnome.Calculator" },
    { "app-org.gnome.Calculator.service", "org.gnome.Calculator" },
    { "app-gnome-org.gnome.Calculator@1.service", "org.gnome.Calculator" },
    { "app-gnome-firefox\\x2desr-77.scope", "firefox-esr" },
    { "app-kde-org.example.My\\x2dApp\\x2dTwo-9.scope", "org.example.My-App-Two" },
    { "app-glib-firefox-5.scope", "firefox" },
    { "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.App-4242.scope",
      "org.example.App" },
    { "app.slice", NULL },
    { "app-gnome-org.example.App-4242.slice", NULL },
    { "session.slice", NULL },
    { "dbus.service", NULL },
    { "app-a-b-c-1.scope", NULL },           /* two dashes left: an unescaped id */
    { "app-org.example.App.scope", NULL },   /* a scope needs its random part */
    { "app-org.example.App-.scope", NULL },
    { "app-gnome--1.scope", NULL },
    { "app--org.example.App-1.scope", NULL },
    { "app-gnome-org..App-1.scope", NULL },
    { "app-gnome-.org.App-1.scope", NULL },
    { "app-gnome-org.App\\x2-1.scope", NULL },
    { "app-gnome-org.App\\x20x-1.scope", NULL },  /* a space, escaped: not an id */
    { "app-gnome-org.App\\x2fx-1.scope", NULL },
    /* Any byte outside the id's letters, unescaped, makes it none: a NUL
     * must not cut the id short into another app's. */
    { "app-gnome-org.example.Calc\\x00.evil-2.scope", NULL },
    { "app-gnome-org.example.Calc\\x00-2.scope", NULL },
    { "app-org.example.Calc\\x00.service", NULL },
    { "app-gnome-org.example.Calc\\x0a.evil-2.scope", NULL },
    { "app-gnome-org.example.Calc\\xff-2.scope", NULL },
    { "app-gnome-org.example.Calc\\x5cx-2.scope", NULL },   /* a backslash */
    { "app-gnome-org.example\\x2eCalc-2.scope", "org.example.Calc" },
    { "xapp-gnome-org.App-1.scope", NULL },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *app_id = procwatch_app_id_from_path (cases[i].name);

      g_test_message ("%s", cases[i].name);
      g_assert_cmpstr (app_id, ==, cases[i].app_id);
    }

  g_assert_true (procwatch_app_id_is_valid ("firefox"));
  g_assert_true (procwatch_app_id_is_valid ("org.gnome.Calculator"));
  g_assert_false (procwatch_app_id_is_valid (""));
  g_assert_false (procwatch_app_id_is_valid ("org/gnome"));
  g_assert_false (procwatch_app_id_is_valid ("org gnome"));
  g_assert_false (procwatch_app_id_is_valid ("org..gnome"));
}

static void
test_user_manager_from_path (void)
{
  g_autofree char *found = NULL;
  g_autofree char *nested = NULL;

  found = procwatch_apps_find_user_manager ("/user.slice/user-1000.slice/user@1000.service/app.slice/app-x-1.scope", 1000);
  g_assert_cmpstr (found, ==, "/user.slice/user-1000.slice/user@1000.service");
  g_assert_null (procwatch_apps_find_user_manager ("/user.slice/user-1000.slice/user@1000.service/app.slice", 1001));
  g_assert_null (procwatch_apps_find_user_manager ("/user.slice/user-1000.slice/user@10000.service", 1000));
  g_assert_null (procwatch_apps_find_user_manager ("/system.slice/cron.service", 1000));
  nested = procwatch_apps_find_user_manager ("/user@1000.service", 1000);
  g_assert_cmpstr (nested, ==, "/user@1000.service");
}

/* The tree of a user manager with two instances of one app, one of
 * another, escaped ids and units that are no app's. */
static const char *fake_units[] = {
  "user@1000.service/app.slice/app-gnome-org.example.App-4242.scope",
  "user@1000.service/app.slice/app-gnome-org.example.App-4242.scope/inner",
  "user@1000.service/app.slice/app-flatpak-org.example.App-12.scope",
  "user@1000.service/app.slice/app-org.example.Other@abc.service",
  "user@1000.service/app.slice/app-gnome-org.example.My\\x2dApp-7.scope",
  "user@1000.service/app.slice/app-gnome-org.example.App\\x00.evil-2.scope",
  "user@1000.service/app.slice/app-a-b-c-1.scope",
  "user@1000.service/app.slice/dbus.service",
  "user@1000.service/session.slice/org.gnome.Shell@wayland.service",
  "user@1000.service/init.scope",
};

/* Each unit gets a process, but for an instance that has quit (an empty
 * unit of the app, which is not listed). Returns the processes. */
static GArray *
make_fake_user_manager (void)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fake_units); i++)
    {
      g_autofree char *absolute = make_cgroup (fake_units[i], NULL);
      GPid pid = spawn_in (absolute, BEHAVE_PAUSE, NULL);

      g_array_append_val (pids, pid);
    }
  g_free (make_cgroup ("user@1000.service/app.slice/app-gnome-org.example.App-99.scope", NULL));

  return pids;
}

static void
end_all (GArray *pids)
{
  guint i;

  for (i = 0; i < pids->len; i++)
    {
      g_assert_no_errno (kill (g_array_index (pids, GPid, i), SIGKILL));
      reap (g_array_index (pids, GPid, i));
    }
  g_array_unref (pids);
}

static void
assert_found (const char         *app_id,
              const char         *under,
              const char * const *expected)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) found = procwatch_cgroup_find_app_instances (app_id, under, &error);
  guint i;

  g_assert_no_error (error);
  g_assert_nonnull (found);
  for (i = 0; expected[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (test_cgroups_get_root (), expected[i], NULL);

      g_assert_cmpstr (found[i], ==, path);
    }
  g_assert_null (found[i]);
}

static void
test_find_under (void)
{
  g_autofree char *manager_relative = NULL;
  g_autofree char *manager = NULL;
  const char *two[] = {
    "user@1000.service/app.slice/app-flatpak-org.example.App-12.scope",
    "user@1000.service/app.slice/app-gnome-org.example.App-4242.scope",
    NULL,
  };
  const char *other[] = { "user@1000.service/app.slice/app-org.example.Other@abc.service", NULL };
  const char *escaped[] = { "user@1000.service/app.slice/app-gnome-org.example.My\\x2dApp-7.scope", NULL };
  const char *none[] = { NULL };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) found = NULL;
  GArray *pids;

  if (skip_without_cgroups ())
    return;

  pids = make_fake_user_manager ();
  manager = make_cgroup ("user@1000.service", &manager_relative);

  assert_found ("org.example.App", manager_relative, two);
  /* The mount's form too, and the whole tree of the run. */
  assert_found ("org.example.App", manager, two);
  assert_found ("org.example.App", test_cgroups_get_root (), two);
  assert_found ("org.example.Other", manager_relative, other);
  assert_found ("org.example.My-App", manager_relative, escaped);
  assert_found ("org.example.Missing", manager_relative, none);
  /* Units that are no app's are not found by parts of their names. */
  assert_found ("c", manager_relative, none);
  assert_found ("dbus", manager_relative, none);

  found = procwatch_cgroup_find_app_instances ("org example", manager_relative, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_null (found);
  g_clear_error (&error);

  found = procwatch_cgroup_find_app_instances ("org.example.App", "/no/such/gio-procwatch/cgroup", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (found);

  end_all (pids);
}

/* @under NULL: from a process inside the fake user@1000.service, running
 * as uid 1000, the paths it finds; from one outside it, the error. */
static char *
find_from_child (const char *absolute,
                 uid_t       uid,
                 const char *app_id)
{
  int out[2];
  GString *text = g_string_new (NULL);
  char chunk[512];
  gssize n;
  GPid pid;

  g_assert_no_errno (pipe2 (out, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autofree char *procs = g_build_filename (absolute, "cgroup.procs", NULL);
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) found = NULL;
      g_autofree char *joined = NULL;
      int fd = open (procs, O_WRONLY);

      if (fd < 0 || write (fd, "0", 1) != 1 || setresuid (uid, uid, uid) != 0)
        _exit (111);
      close (fd);
      found = procwatch_cgroup_find_app_instances (app_id, NULL, &error);
      joined = found != NULL ? g_strjoinv ("\n", found)
                             : g_strdup_printf ("error %d: %s", error->code, error->message);
      (void) !write (out[1], joined, strlen (joined));
      _exit (0);
    }

  close (out[1]);
  while ((n = read (out[0], chunk, sizeof chunk)) > 0)
    g_string_append_len (text, chunk, n);
  close (out[0]);
  g_assert_cmpint (reap (pid), ==, 0);

  return g_string_free (text, FALSE);
}

static void
test_find_own_user_manager (void)
{
  g_autofree char *session = NULL;
  g_autofree char *outside = NULL;
  g_autofree char *found = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *error_text = NULL;
  GArray *pids;

  if (skip_without_cgroups ())
    return;

  pids = make_fake_user_manager ();
  session = make_cgroup ("user@1000.service/session.slice/org.gnome.Shell@wayland.service", NULL);
  outside = make_cgroup ("elsewhere", NULL);

  found = find_from_child (session, 1000, "org.example.App");
  expected = g_strdup_printf ("%s/user@1000.service/app.slice/app-flatpak-org.example.App-12.scope\n"
                              "%s/user@1000.service/app.slice/app-gnome-org.example.App-4242.scope",
                              test_cgroups_get_root (), test_cgroups_get_root ());
  g_assert_cmpstr (found, ==, expected);

  /* Another user's manager is not the caller's. */
  error_text = find_from_child (session, 1001, "org.example.App");
  g_assert_true (g_str_has_prefix (error_text, "error 1: "));  /* G_IO_ERROR_NOT_FOUND */
  g_assert_nonnull (strstr (error_text, "user@1001.service"));
  g_clear_pointer (&error_text, g_free);

  error_text = find_from_child (outside, 1000, "org.example.App");
  g_assert_true (g_str_has_prefix (error_text, "error 1: "));
  g_assert_nonnull (strstr (error_text, "elsewhere"));

  end_all (pids);
}

/* The id as a watched cgroup carries it, and its property. */
static void
test_cgroup_app_id (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) app = NULL;
  g_autoptr(ProcwatchCgroup) slice = NULL;
  g_autofree char *app_relative = NULL;
  g_autofree char *app_id = NULL;
  g_autofree char *absolute = NULL;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("user@1000.service/app.slice/app-gnome-org.example.My\\x2dApp-7.scope",
                          &app_relative);
  app = watch (monitor, app_relative);
  g_assert_cmpstr (procwatch_cgroup_get_app_id (app), ==, "org.example.My-App");
  g_object_get (app, "app-id", &app_id, NULL);
  g_assert_cmpstr (app_id, ==, "org.example.My-App");

  g_free (absolute);
  absolute = make_cgroup ("user@1000.service/app.slice", NULL);
  slice = watch (monitor, absolute);
  g_assert_null (procwatch_cgroup_get_app_id (slice));
}

/* TERM to a tree whose processes ignore it, one of them noting it: it
 * reaches each, nobody dies, the tree is thawed; then KILL ends them. */
static void
check_term_then_kill (gboolean with_cgroup_kill)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *freeze = NULL;
  GPid ignoring, noting;
  int note;
  int status;
  Sent sent;

  absolute = make_cgroup ("app-test-org.example.Stubborn-1.scope", &relative);
  inner = make_cgroup ("app-test-org.example.Stubborn-1.scope/inner", NULL);
  ignoring = spawn_in (absolute, BEHAVE_IGNORE_TERM, NULL);
  noting = spawn_in (inner, BEHAVE_NOTE_TERM, &note);
  cgroup = watch (monitor, relative);

  send_and_wait (cgroup, SIGTERM, &sent);
  g_assert_no_error (sent.error);
  g_assert_true (sent.ok);
  g_assert_cmpint (await_note (note), ==, 'T');
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
  g_assert_no_errno (kill (ignoring, 0));
  g_assert_no_errno (kill (noting, 0));
  g_assert_true (procwatch_cgroup_get_populated (cgroup));

#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_no_cgroup_kill = !with_cgroup_kill;
#endif
  send_and_wait (cgroup, SIGKILL, &sent);
#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_no_cgroup_kill = FALSE;
#endif
  g_assert_no_error (sent.error);
  wait_empty (cgroup);

  status = reap (ignoring);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  status = reap (noting);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  g_clear_pointer (&freeze, g_free);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
  close (note);
}

static void
test_term_ignored (void)
{
  if (skip_without_cgroups ())
    return;

  check_term_then_kill (TRUE);
}

static void
test_term_ignored_freeze_kill (void)
{
  if (skip_without_cgroups ())
    return;

  check_term_then_kill (FALSE);
}

/* A process forking a child every millisecond: TERM, with the tree
 * frozen meanwhile, reaches every one of them, so the cgroup empties (a
 * child forked after the processes were listed would go on forking); a
 * KILL afterwards finds nothing. */
static void
check_storm (int signum)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *procs = NULL;
  GPid storm;
  int status;
  Sent sent;

  absolute = make_cgroup ("app-test-org.example.Storm-1.scope", &relative);
  storm = spawn_in (absolute, BEHAVE_STORM, NULL);
  cgroup = watch (monitor, relative);

#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_no_cgroup_kill = TRUE;
#endif
  send_and_wait (cgroup, signum, &sent);
#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_no_cgroup_kill = FALSE;
#endif
  g_assert_no_error (sent.error);
  wait_empty (cgroup);

  procs = get (absolute, "cgroup.procs");
  g_assert_cmpstr (procs, ==, "");
  send_and_wait (cgroup, SIGKILL, &sent);
  g_assert_no_error (sent.error);

  status = reap (storm);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == signum);
  reap_orphans ();
}

#ifdef PROCWATCH_TEST_SEAM
/* What the kernel said of every cgroup below the top when the library
 * was about to signal: the rounds in which one said `frozen 0`. */
static guint rounds_signalled_unfrozen;

static void
check_tree_frozen (int dir_fd)
{
  g_autofree char *fd_path = g_strdup_printf ("/proc/self/fd/%d", dir_fd);
  g_autofree char *target = g_file_read_link (fd_path, NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_assert_nonnull (target);
  dir = g_dir_open (target, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *below = g_build_filename (target, name, NULL);
      g_autofree char *events = NULL;

      if (!g_file_test (below, G_FILE_TEST_IS_DIR))
        continue;
      events = get (below, "cgroup.events");
      if (strstr (events, "frozen 1") == NULL)
        {
          rounds_signalled_unfrozen++;
          return;
        }
    }
}
#endif

/* A round of the nested storm: its sleeper's status once reaped; every
 * other process reaped as it ends (the test is the subreaper of those
 * whose parent went first), so that a tree that goes on forking does not
 * use up the machine's pids. */
typedef struct
{
  GPid sleeper;
  int sleeper_status;
  gboolean sleeper_reaped;
  gboolean empty;
  gboolean given_up;
} Round;

static gboolean
reap_round (gpointer user_data)
{
  Round *round = user_data;
  GPid pid;
  int status;

  while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
    if (pid == round->sleeper)
      {
        round->sleeper_status = status;
        round->sleeper_reaped = TRUE;
      }

  return G_SOURCE_CONTINUE;
}

static void
on_round_empty (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Round *round = user_data;

  if (procwatch_cgroup_wait_empty_finish (PROCWATCH_CGROUP (object), result, NULL))
    round->empty = TRUE;
}

static gboolean
on_give_up (gpointer user_data)
{
  Round *round = user_data;

  round->given_up = TRUE;
  return G_SOURCE_REMOVE;
}

/* Whether @cgroup empties within @seconds, and its sleeper is reaped; a
 * process that escaped the signal keeps it populated for ever. */
static gboolean
empties_within (ProcwatchCgroup *cgroup,
                Round           *round,
                guint            seconds)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  guint timeout = g_timeout_add_seconds (seconds, on_give_up, round);
  guint reaper = g_timeout_add (5, reap_round, round);

  procwatch_cgroup_wait_empty_async (cgroup, cancellable, on_round_empty, round);
  while (!(round->empty && round->sleeper_reaped) && !round->given_up)
    g_main_context_iteration (NULL, TRUE);
  if (!round->given_up)
    g_source_remove (timeout);
  g_source_remove (reaper);
  g_cancellable_cancel (cancellable);
  test_drain_context (NULL);

  return round->empty;
}

/* The storm with the tree nested: a sleeper at the top, and below it
 * processes that fork a successor and exit, so that one signalled by pid
 * has often been replaced. The kernel says `frozen 1` of the top once the
 * sleeper is frozen, while the cgroup below may still say `frozen 0`: a
 * signal sent then misses the successors forked meanwhile, which go on.
 * A race, so forty rounds (about one in five ran into it before the
 * library waited for every cgroup of the tree): in each the library must
 * signal only once every cgroup says `frozen 1`, and the tree empty for
 * good. */
static void
check_storm_nested (int signum)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  guint n;

#ifdef PROCWATCH_TEST_SEAM
  rounds_signalled_unfrozen = 0;
  procwatch_test_seam_before_tree_signal = check_tree_frozen;
#endif
  for (n = 0; n < 40; n++)
    {
      g_autoptr(ProcwatchCgroup) cgroup = NULL;
      g_autofree char *name = g_strdup_printf ("app-test-org.example.Hop-%u.scope", n);
      g_autofree char *sub_name = g_strconcat (name, "/sub", NULL);
      g_autofree char *relative = NULL;
      g_autofree char *absolute = make_cgroup (name, &relative);
      g_autofree char *sub = make_cgroup (sub_name, NULL);
      Round round = { 0 };
      guint i;
      Sent sent;

      round.sleeper = spawn_in (absolute, BEHAVE_PAUSE, NULL);
      for (i = 0; i < 4; i++)
        spawn_in (sub, BEHAVE_HOP, NULL);
      cgroup = watch (monitor, relative);

#ifdef PROCWATCH_TEST_SEAM
      procwatch_test_seam_no_cgroup_kill = TRUE;
#endif
      send_and_wait (cgroup, signum, &sent);
#ifdef PROCWATCH_TEST_SEAM
      procwatch_test_seam_no_cgroup_kill = FALSE;
#endif
      g_assert_no_error (sent.error);

      if (!empties_within (cgroup, &round, 5))
        {
          g_autofree char *procs = get (sub, "cgroup.procs");

          g_test_fail_printf ("round %u: processes escaped the signal and fork on: %s", n, procs);
          put (absolute, "cgroup.kill", "1");
          round.given_up = FALSE;
          empties_within (cgroup, &round, 30);
          break;
        }

      g_assert_true (round.sleeper_reaped);
      g_assert_true (WIFSIGNALED (round.sleeper_status) &&
                     WTERMSIG (round.sleeper_status) == signum);
    }

#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_before_tree_signal = NULL;
  g_test_message ("rounds signalled with a cgroup below not frozen: %u of %u",
                  rounds_signalled_unfrozen, n);
  g_assert_cmpuint (rounds_signalled_unfrozen, ==, 0);
#endif
}

/* Under valgrind every process blocks all signals in the kernel and takes
 * them at points of valgrind's choosing: a forking process frozen there
 * makes its child before it takes a TERM, always, and the freeze's extra
 * rounds for processes that block the signal cannot tell it from one that
 * keeps it blocked. The nested TERM storm needs processes a signal ends at
 * once. */
static gboolean
under_valgrind (void)
{
  const char *preload = g_getenv ("LD_PRELOAD");

  return preload != NULL && strstr (preload, "vgpreload") != NULL;
}

static gboolean
skip_under_valgrind (void)
{
  if (!under_valgrind ())
    return FALSE;

  g_test_skip ("under valgrind a process takes a signal only at valgrind's points, after "
               "the fork it was making: TERM cannot end it at once");
  return TRUE;
}

static void
test_storm_term_nested (void)
{
  if (skip_without_cgroups () || skip_under_valgrind ())
    return;

  check_storm_nested (SIGTERM);
}

static void
test_storm_kill_frozen_nested (void)
{
  if (skip_without_cgroups ())
    return;

  check_storm_nested (SIGKILL);
}

static void
test_storm_term (void)
{
  if (skip_without_cgroups ())
    return;

  check_storm (SIGTERM);
}

static void
test_storm_kill_frozen (void)
{
  if (skip_without_cgroups ())
    return;

  check_storm (SIGKILL);
}

/* A tree frozen by someone else stays frozen; the signal waits in a
 * process with a handler until it is thawed, while one without a handler
 * dies of it at once, frozen. */
static void
test_pre_frozen (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *freeze = NULL;
  GPid noting;
  GPid plain;
  int status;
  int note;
  Sent sent;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-test-org.example.Frozen-1.scope", &relative);
  noting = spawn_in (absolute, BEHAVE_NOTE_TERM, &note);
  plain = spawn_in (absolute, BEHAVE_PAUSE, NULL);
  cgroup = watch (monitor, relative);
  put (absolute, "cgroup.freeze", "1");

  send_and_wait (cgroup, SIGTERM, &sent);
  g_assert_no_error (sent.error);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "1");
  g_assert_true (signal_pending (noting, SIGTERM));
  /* Under valgrind every process has a handler for every signal (see
   * skip_under_valgrind ()), so the plain one too takes its TERM only once
   * thawed. */
  if (!under_valgrind ())
    {
      status = reap (plain);
      g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
    }
  g_clear_pointer (&freeze, g_free);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "1");

  put (absolute, "cgroup.freeze", "0");
  g_assert_cmpint (await_note (note), ==, 'T');
  if (under_valgrind ())
    {
      status = reap (plain);
      g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
    }

  g_assert_no_errno (kill (noting, SIGKILL));
  reap (noting);
  close (note);
}

/* Two signals at once into one tree: the second finds the tree frozen by
 * the first and holds that freeze too; the last to finish thaws it. Were
 * it taken for someone else's freeze, the first would thaw the tree under
 * the second. The freeze is made to never settle (test seam), the first
 * given a short limit: once it has timed out, the tree must still be
 * frozen for the second. */
static void
test_overlapping (void)
{
#ifdef PROCWATCH_TEST_SEAM
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *freeze = NULL;
  GPid target;
  Sent first, second;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-test-org.example.Twice-1.scope", &relative);
  target = spawn_in (absolute, BEHAVE_PAUSE, NULL);
  cgroup = watch (monitor, relative);

  procwatch_test_seam_freeze_never_settles = TRUE;
  procwatch_test_seam_freeze_limit_ms = 200;
  start_send (cgroup, SIGTERM, NULL, &first);
  while (TRUE)
    {
      g_autofree char *value = get (absolute, "cgroup.freeze");

      if (strcmp (value, "1") == 0)
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  procwatch_test_seam_freeze_limit_ms = 60000;
  start_send (cgroup, SIGTERM, cancellable, &second);
  test_run_until (NULL, &first.done);
  g_assert_error (first.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_clear_error (&first.error);

  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "1");
  g_assert_false (second.done);

  g_cancellable_cancel (cancellable);
  test_run_until (NULL, &second.done);
  g_assert_error (second.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&second.error);
  g_clear_pointer (&freeze, g_free);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
  procwatch_test_seam_freeze_never_settles = FALSE;
  procwatch_test_seam_freeze_limit_ms = 0;

  g_assert_false (signal_pending (target, SIGTERM));
  g_assert_no_errno (kill (target, SIGKILL));
  reap (target);
#else
  g_test_skip ("needs the test seam");
#endif
}

/* A freeze that never settles: TIMED_OUT after the limit, nothing
 * signalled, the tree thawed. The kernel counts the usual ways to hold a
 * task out of the freezer (a vfork parent waiting, stopped and traced
 * tasks) as frozen, and uninterruptible sleep needs a file system that
 * hangs (FUSE, NFS): so the test seam makes the freeze look unsettled. */
static void
test_stuck_freeze (void)
{
#ifdef PROCWATCH_TEST_SEAM
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *freeze = NULL;
  g_autofree char *events = NULL;
  GPid target;
  Sent sent;
  gint64 started;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-test-org.example.Stuck-1.scope", &relative);
  target = spawn_in (absolute, BEHAVE_PAUSE, NULL);
  cgroup = watch (monitor, relative);

  procwatch_test_seam_freeze_never_settles = TRUE;
  procwatch_test_seam_freeze_limit_ms = 300;
  started = g_get_monotonic_time ();
  send_and_wait (cgroup, SIGTERM, &sent);
  procwatch_test_seam_freeze_never_settles = FALSE;
  procwatch_test_seam_freeze_limit_ms = 0;

  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 300 * 1000);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
  events = get (absolute, "cgroup.events");
  g_assert_nonnull (strstr (events, "frozen 0"));
  g_assert_false (signal_pending (target, SIGTERM));
  g_assert_no_errno (kill (target, 0));
  g_clear_error (&sent.error);

  g_assert_no_errno (kill (target, SIGKILL));
  reap (target);
#else
  g_test_skip ("needs the test seam");
#endif
}

/* Cancelled while the freeze is awaited: CANCELLED, thawed; and the
 * monitor closed meanwhile: CANCELLED from the main loop, thawed. */
static void
test_cancel_and_close (void)
{
#ifdef PROCWATCH_TEST_SEAM
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *freeze = NULL;
  GPid target;
  guint fds;
  Sent sent;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-test-org.example.Cancel-1.scope", &relative);
  target = spawn_in (absolute, BEHAVE_PAUSE, NULL);
  fds = test_count_open_fds ();
  cgroup = watch (monitor, relative);

  procwatch_test_seam_freeze_never_settles = TRUE;
  start_send (cgroup, SIGTERM, cancellable, &sent);
  /* The first step freezes the tree. */
  while (TRUE)
    {
      g_autofree char *value = get (absolute, "cgroup.freeze");

      if (strcmp (value, "1") == 0)
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  g_cancellable_cancel (cancellable);
  test_run_until (NULL, &sent.done);
  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&sent.error);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");

  start_send (cgroup, SIGTERM, NULL, &sent);
  while (TRUE)
    {
      g_autofree char *value = get (absolute, "cgroup.freeze");

      if (strcmp (value, "1") == 0)
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  procwatch_process_monitor_close (monitor);
  g_clear_pointer (&freeze, g_free);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
  g_assert_false (sent.done);
  test_run_until (NULL, &sent.done);
  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&sent.error);
  procwatch_test_seam_freeze_never_settles = FALSE;

  /* Not watched any more; the monitor's fds, the signals' among them,
   * are all closed. */
  g_assert_cmpuint (test_count_open_fds (), ==, fds);
  start_send (cgroup, SIGTERM, NULL, &sent);
  test_run_until (NULL, &sent.done);
  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  g_clear_error (&sent.error);

  g_assert_false (signal_pending (target, SIGTERM));
  g_assert_no_errno (kill (target, SIGKILL));
  reap (target);
#else
  g_test_skip ("needs the test seam");
#endif
}

/* The caller inside the tree: refused, nothing frozen. From a child that
 * joins the cgroup's subtree and makes its own monitor. */
static void
test_caller_inside (void)
{
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *freeze = NULL;
  GPid pid;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-test-org.example.Self-1.scope", &relative);
  inner = make_cgroup ("app-test-org.example.Self-1.scope/inner", NULL);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
      g_autoptr(ProcwatchCgroup) cgroup = NULL;
      Sent sent;

      put (inner, "cgroup.procs", "0");
      monitor = procwatch_process_monitor_new ();
      cgroup = watch (monitor, relative);
      /* Were it not refused, the signal would end this child. */
      send_and_wait (cgroup, SIGTERM, &sent);
      g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_clear_error (&sent.error);
      _exit (0);
    }

  g_assert_cmpint (reap (pid), ==, 0);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
}

/* Not ours to write: PERMISSION_DENIED, from a child that is no longer
 * root; the tree is neither frozen nor signalled. */
static void
test_permission_denied (void)
{
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *freeze = NULL;
  GPid target;
  GPid pid;
  int signums[] = { SIGKILL, SIGTERM };
  guint i;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-test-org.example.Foreign-1.scope", &relative);
  target = spawn_in (absolute, BEHAVE_PAUSE, NULL);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
      g_autoptr(ProcwatchCgroup) cgroup = watch (monitor, relative);
      Sent sent;

      g_assert_no_errno (setresuid (65534, 65534, 65534));
      for (i = 0; i < G_N_ELEMENTS (signums); i++)
        {
          send_and_wait (cgroup, signums[i], &sent);
          g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
          g_clear_error (&sent.error);
        }
      _exit (0);
    }

  g_assert_cmpint (reap (pid), ==, 0);
  freeze = get (absolute, "cgroup.freeze");
  g_assert_cmpstr (freeze, ==, "0");
  g_assert_false (signal_pending (target, SIGTERM));
  g_assert_no_errno (kill (target, SIGKILL));
  reap (target);
}

/* The completion is a callout: its callback may unwatch the cgroup,
 * close the monitor or drop its last reference, and nothing is emitted
 * for the cgroup afterwards. */
typedef enum
{
  IN_CALLBACK_UNWATCH,
  IN_CALLBACK_CLOSE,
  IN_CALLBACK_LAST_UNREF,
  IN_CALLBACK_NESTED_LOOP,
} InCallback;

typedef struct
{
  InCallback action;
  ProcwatchProcessMonitor *monitor;
  ProcwatchCgroup *cgroup;
  gboolean done;
  guint n_emptied;
} CalloutCase;

static void
on_sent_act (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  CalloutCase *c = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (procwatch_cgroup_send_signal_finish (PROCWATCH_CGROUP (object), result, &error));
  switch (c->action)
    {
    case IN_CALLBACK_UNWATCH:
      g_assert_true (procwatch_process_monitor_unwatch_cgroup (c->monitor, c->cgroup));
      break;
    case IN_CALLBACK_CLOSE:
      procwatch_process_monitor_close (c->monitor);
      break;
    case IN_CALLBACK_LAST_UNREF:
      g_clear_object (&c->monitor);
      break;
    case IN_CALLBACK_NESTED_LOOP:
      while (g_main_context_iteration (NULL, FALSE))
        ;
      break;
    }
  c->done = TRUE;
}

static void
on_emptied_count (ProcwatchProcessMonitor *monitor,
                  ProcwatchCgroup         *cgroup,
                  gpointer                 user_data)
{
  ((CalloutCase *) user_data)->n_emptied++;
}

/* Blocks (bounded) until the kernel says @absolute is empty. */
static void
await_kernel_empty (const char *absolute)
{
  g_autofree char *path = g_build_filename (absolute, "cgroup.events", NULL);
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  g_assert_no_errno (fd < 0 ? -1 : 0);
  while (procwatch_cgroup_read_populated (fd) == 1)
    {
      struct pollfd pfd = { fd, POLLPRI, 0 };

      g_assert_cmpint (poll (&pfd, 1, 30000), ==, 1);
    }
  close (fd);
}

static void
test_completion_callout (void)
{
  InCallback actions[] = {
    IN_CALLBACK_UNWATCH, IN_CALLBACK_CLOSE, IN_CALLBACK_LAST_UNREF, IN_CALLBACK_NESTED_LOOP,
  };
  guint i;

  if (skip_without_cgroups ())
    return;

  for (i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      g_autofree char *name = g_strdup_printf ("app-test-org.example.Callout-%u.scope", i);
      g_autofree char *relative = NULL;
      g_autofree char *absolute = make_cgroup (name, &relative);
      CalloutCase c = { .action = actions[i] };
      GPid target = spawn_in (absolute, BEHAVE_PAUSE, NULL);
      guint fds = test_count_open_fds ();

      c.monitor = procwatch_process_monitor_new ();
      c.cgroup = watch (c.monitor, relative);
      g_signal_connect (c.monitor, "cgroup-emptied", G_CALLBACK (on_emptied_count), &c);
      procwatch_cgroup_send_signal_async (c.cgroup, SIGKILL, NULL, on_sent_act, &c);
      test_run_until (NULL, &c.done);

      await_kernel_empty (absolute);
      if (c.monitor != NULL && actions[i] == IN_CALLBACK_NESTED_LOOP)
        test_run_until_count (NULL, &c.n_emptied, 1);
      else
        {
          test_drain_context (NULL);
          g_assert_cmpuint (c.n_emptied, ==, 0);
        }

      reap (target);
      g_clear_object (&c.cgroup);
      g_clear_object (&c.monitor);
      /* The signal's timer, directory and cgroup.events are closed. */
      g_assert_cmpuint (test_count_open_fds (), ==, fds);
    }
}

/* A path removed, and made again (a unit restarted), before the monitor
 * has seen the removal: another cgroup, NOT_FOUND; removed only: NOT_FOUND
 * too. Once the monitor has seen the removal, the cgroup is not watched:
 * CLOSED. */
static void
test_recreated_path (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) restarted = NULL;
  g_autoptr(ProcwatchCgroup) removed = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *removed_relative = NULL;
  g_autofree char *removed_absolute = NULL;
  Sent sent;

  if (skip_without_cgroups ())
    return;

  absolute = make_cgroup ("app-org.example.Restarted.service", &relative);
  removed_absolute = make_cgroup ("app-org.example.Removed.service", &removed_relative);
  restarted = watch (monitor, relative);
  removed = watch (monitor, removed_relative);

  g_assert_no_errno (rmdir (absolute));
  g_assert_no_errno (mkdir (absolute, 0755));
  start_send (restarted, SIGKILL, NULL, &sent);
  test_run_until (NULL, &sent.done);
  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (sent.error->message, "another"));
  g_clear_error (&sent.error);

  g_assert_no_errno (rmdir (removed_absolute));
  start_send (removed, SIGTERM, NULL, &sent);
  test_run_until (NULL, &sent.done);
  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&sent.error);

  while (procwatch_cgroup_get_watch (removed) != NULL)
    g_main_context_iteration (NULL, TRUE);
  start_send (removed, SIGTERM, NULL, &sent);
  test_run_until (NULL, &sent.done);
  g_assert_error (sent.error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  g_clear_error (&sent.error);
}

/* What the closing note of the issue asks: from the signal to
 * "cgroup-emptied" for an app of @n processes. */
static void
on_emptied_flag (ProcwatchProcessMonitor *monitor,
                 ProcwatchCgroup         *cgroup,
                 gpointer                 user_data)
{
  *(gboolean *) user_data = TRUE;
}

static void
measure_kill (guint    n,
              gboolean with_cgroup_kill)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  GPid *pids = g_new (GPid, n);
  gboolean emptied = FALSE;
  gint64 started, emptied_at;
  Sent sent;
  guint i;

  absolute = make_cgroup (with_cgroup_kill ? "app-test-org.example.Many-1.scope"
                                           : "app-test-org.example.Many-2.scope", &relative);
  for (i = 0; i < n; i++)
    pids[i] = spawn_in (absolute, BEHAVE_PAUSE, NULL);
  cgroup = watch (monitor, relative);
  g_signal_connect (monitor, "cgroup-emptied", G_CALLBACK (on_emptied_flag), &emptied);

#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_no_cgroup_kill = !with_cgroup_kill;
#endif
  started = g_get_monotonic_time ();
  start_send (cgroup, SIGKILL, NULL, &sent);
  test_run_until (NULL, &emptied);
  emptied_at = g_get_monotonic_time ();
#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_no_cgroup_kill = FALSE;
#endif
  test_run_until (NULL, &sent.done);
  g_assert_no_error (sent.error);
  g_test_message ("SIGKILL to %u processes %s: completed after %.1f ms, "
                  "\"cgroup-emptied\" after %.1f ms",
                  n, with_cgroup_kill ? "through cgroup.kill" : "frozen, one by one",
                  (sent.done_at - started) / 1000.0, (emptied_at - started) / 1000.0);

  for (i = 0; i < n; i++)
    reap (pids[i]);
  g_free (pids);
}

static void
test_measure_kill (void)
{
  const char *text = g_getenv ("PROCWATCH_TEST_APP_PROCESSES");
  guint n = text != NULL ? atoi (text) : 200;

  if (skip_without_cgroups ())
    return;

  measure_kill (n, TRUE);
  measure_kill (n, FALSE);
}

int
main (int    argc,
      char **argv)
{
  test_cgroups_set_up ();
  test_init (&argc, &argv);
  /* The default context's wakeup fd, and the one GTask's class makes for
   * its thread pool, belong to the process: made before any test counts
   * fds. */
  (void) g_main_context_default ();
  g_type_ensure (G_TYPE_TASK);

  if (test_expected_backend () != NULL)
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();

      g_assert_cmpstr (procwatch_process_monitor_get_backend (monitor), ==,
                       test_expected_backend ());
    }

  g_test_add_func ("/apps/app-id/parse", test_app_id_parse);
  g_test_add_func ("/apps/app-id/user-manager", test_user_manager_from_path);
  g_test_add_func ("/apps/app-id/cgroup", test_cgroup_app_id);
  g_test_add_func ("/apps/find/under", test_find_under);
  g_test_add_func ("/apps/find/own-user-manager", test_find_own_user_manager);
  g_test_add_func ("/apps/signal/term-ignored", test_term_ignored);
  g_test_add_func ("/apps/signal/term-ignored-freeze-kill", test_term_ignored_freeze_kill);
  g_test_add_func ("/apps/signal/storm-term", test_storm_term);
  g_test_add_func ("/apps/signal/storm-kill-frozen", test_storm_kill_frozen);
  g_test_add_func ("/apps/signal/storm-term-nested", test_storm_term_nested);
  g_test_add_func ("/apps/signal/storm-kill-frozen-nested", test_storm_kill_frozen_nested);
  g_test_add_func ("/apps/signal/pre-frozen", test_pre_frozen);
  g_test_add_func ("/apps/signal/overlapping", test_overlapping);
  g_test_add_func ("/apps/signal/stuck-freeze", test_stuck_freeze);
  g_test_add_func ("/apps/signal/cancel-and-close", test_cancel_and_close);
  g_test_add_func ("/apps/signal/caller-inside", test_caller_inside);
  g_test_add_func ("/apps/signal/recreated-path", test_recreated_path);
  g_test_add_func ("/apps/signal/permission-denied", test_permission_denied);
  g_test_add_func ("/apps/signal/completion-callout", test_completion_callout);
  g_test_add_func ("/apps/signal/measure-kill", test_measure_kill);

  return g_test_run ();
}
