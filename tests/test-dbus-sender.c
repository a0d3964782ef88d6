/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * watch_dbus_sender_async on real D-Bus callers: a private message bus
 * of each implementation installed (dbus-daemon, dbus-broker; started by
 * procwatch-dbus-test-bus) or a GDBusServer, and client processes
 * (procwatch-dbus-test-client) that call this test's service. Each run
 * asserts which way the library found the caller: what the bus or the
 * kernel offers is probed here; each bus's version, asked of the installed
 * program when the test runs, and PROCWATCH_TEST_EXPECT_PEER_VIA
 * (process-fd, process-id, peer-pidfd, peer-cred), where set, say what it
 * must be.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <gio/gunixfdlist.h>
#include <glib/gstdio.h>

#include "procwatch-dbus-sender-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

static const char introspection_xml[] =
  "<node>"
  "  <interface name='org.gioprocwatch.Test'>"
  "    <method name='Hello'>"
  "      <arg type='u' name='pid' direction='in'/>"
  "      <arg type='t' name='inode' direction='in'/>"
  "    </method>"
  "  </interface>"
  "</node>";

/* A message bus implementation, and from which version on it tells
 * callers by ProcessFD. */
typedef struct
{
  const char *name;
  guint process_fd_since[2];   /* the version that sends ProcessFD */
} BusKind;

static const BusKind bus_kinds[] = {
  { "dbus-daemon", { 1, 16 } },
  { "dbus-broker", { 34, 0 } },
};

/* A private bus (procwatch-dbus-test-bus), of either kind. Not GTestDBus:
 * with GLib 2.74, when a test fails, its dbus-daemon and watcher process
 * outlive the test and hold its output open, so the test runner waits for
 * its timeout. This bus dies with the test (PR_SET_PDEATHSIG) and never
 * holds the test's output. */
typedef struct
{
  const BusKind *kind;
  GSubprocess *process;
  char *dir;
  char *address;
} TestBus;

static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static char *read_client_line (GSubprocess *client);

static TestBus *
test_bus_up (const BusKind *kind)
{
  TestBus *bus = g_new0 (TestBus, 1);
  const char *program = g_getenv ("PROCWATCH_TEST_DBUS_BUS");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (program);
  bus->kind = kind;
  bus->dir = g_dir_make_tmp ("procwatch-bus-XXXXXX", &error);
  g_assert_no_error (error);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  bus->process = g_subprocess_launcher_spawn (launcher, &error, program, kind->name, bus->dir,
                                              NULL);
  g_assert_no_error (error);
  bus->address = read_client_line (bus->process);
  g_test_message ("%s at %s", kind->name, bus->address);

  return bus;
}

/* Stops the bus and waits for it: none of its processes outlive it (the
 * broker's launcher exits only once the broker has). */
static void
test_bus_down (TestBus *bus)
{
  g_autofree char *socket_path = g_build_filename (bus->dir, "bus", NULL);
  g_autofree char *config_path = g_build_filename (bus->dir, "bus.conf", NULL);
  g_autoptr(GError) error = NULL;

  g_subprocess_send_signal (bus->process, SIGTERM);
  g_subprocess_wait (bus->process, NULL, &error);
  g_assert_no_error (error);
  /* The broker's launcher exits 0 only once the broker has exited
   * cleanly; dbus-daemon dies of the signal. */
  if (g_str_equal (bus->kind->name, "dbus-broker"))
    g_assert_true (g_subprocess_get_successful (bus->process));
  else if (!g_subprocess_get_if_exited (bus->process))
    g_assert_cmpint (g_subprocess_get_term_sig (bus->process), ==, SIGTERM);
  g_clear_object (&bus->process);
  g_unlink (socket_path);
  g_unlink (config_path);
  g_assert_no_errno (g_rmdir (bus->dir));
  g_free (bus->dir);
  g_free (bus->address);
  g_free (bus);
}

typedef struct
{
  TestBus *bus;
  GDBusServer *server;
  char *server_dir;
  /* The service's connection: to the bus, or the server's end of a peer's. */
  GDBusConnection *connection;
  guint registration;
  ProcwatchProcessMonitor *monitor;
  TestRecorder *recorder;

  /* The last Hello and what watching its caller gave. */
  guint32 hello_pid;
  guint64 hello_inode;
  gboolean watched;
  ProcwatchProcess *process;
  GError *error;
  ProcwatchDBusSenderVia via;

  /* Serve the new connection as a message bus that tells no pid. */
  gboolean pidless_bus;

  /* A peer to watch from inside "new-connection", once it has hung up. */
  GSubprocess *hung_up_peer;
} Fixture;

static const char *
via_name (ProcwatchDBusSenderVia via)
{
  switch (via)
    {
    case PROCWATCH_DBUS_SENDER_VIA_PROCESS_FD:
      return "process-fd";
    case PROCWATCH_DBUS_SENDER_VIA_PROCESS_ID:
      return "process-id";
    case PROCWATCH_DBUS_SENDER_VIA_PEER_PIDFD:
      return "peer-pidfd";
    case PROCWATCH_DBUS_SENDER_VIA_PEER_CRED:
      return "peer-cred";
    case PROCWATCH_DBUS_SENDER_VIA_NONE:
    default:
      return "none";
    }
}

/* What the installed bus's version promises ("dbus-broker 33": the version
 * is the last word of the first line): ProcessFD from kind's version on. */
static const char *
promised_bus_via (const BusKind *kind)
{
  const char *argv[] = { kind->name, "--version", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) words = NULL;
  guint major = 0, minor = 0;
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  lines = g_strsplit (out, "\n", 2);
  words = g_strsplit (g_strstrip (lines[0]), " ", -1);
  g_assert_cmpint (sscanf (words[g_strv_length (words) - 1], "%u.%u", &major, &minor), >=, 1);

  if (major != kind->process_fd_since[0])
    return major > kind->process_fd_since[0] ? "process-fd" : "process-id";
  return minor >= kind->process_fd_since[1] ? "process-fd" : "process-id";
}

/* What the bus offers: whether it sends ProcessFD for our own name. */
static const char *
expected_bus_via (GDBusConnection *connection,
                  const BusKind   *kind)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) credentials = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GError) error = NULL;
  const char *probed;
  const char *expected = promised_bus_via (kind);
  gint32 handle;

  reply = g_dbus_connection_call_with_unix_fd_list_sync (connection, "org.freedesktop.DBus",
                                                         "/org/freedesktop/DBus",
                                                         "org.freedesktop.DBus",
                                                         "GetConnectionCredentials",
                                                         g_variant_new ("(s)",
                                                                        g_dbus_connection_get_unique_name (connection)),
                                                         G_VARIANT_TYPE ("(a{sv})"),
                                                         G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                                                         &fds, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(@a{sv})", &credentials);
  probed = g_variant_lookup (credentials, "ProcessFD", "h", &handle) ? "process-fd" : "process-id";
  g_test_message ("%s offers %s", kind->name, probed);

  g_assert_cmpstr (probed, ==, expected);

  return probed;
}

/* What the kernel offers: SO_PEERPIDFD on a socket of our own. */
static const char *
expected_peer_via (void)
{
  const char *expected = g_getenv ("PROCWATCH_TEST_EXPECT_PEER_VIA");
  const char *probed;
  int pair[2];
  int pidfd = -1;
  socklen_t len = sizeof pidfd;

  g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair));
  if (getsockopt (pair[0], SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0)
    {
      probed = "peer-pidfd";
      close (pidfd);
    }
  else
    {
      g_assert_cmpint (errno, ==, ENOPROTOOPT);
      probed = "peer-cred";
    }
  close (pair[0]);
  close (pair[1]);
  g_test_message ("the kernel offers %s", probed);

  if (expected != NULL)
    g_assert_cmpstr (probed, ==, expected);

  return probed;
}

static void
on_watched (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fixture *f = user_data;

  f->via = procwatch_dbus_sender_get_via (result);
  f->process = procwatch_process_monitor_watch_dbus_sender_finish (PROCWATCH_PROCESS_MONITOR (source),
                                                                   result, &f->error);
  f->watched = TRUE;
}

static void
on_watched_reply (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  Fixture *f = g_object_get_data (G_OBJECT (invocation), "fixture");

  on_watched (source, result, f);
  if (f->error != NULL)
    g_dbus_method_invocation_return_gerror (invocation, f->error);
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
on_method_call (GDBusConnection       *connection,
                const char            *sender,
                const char            *object_path,
                const char            *interface_name,
                const char            *method_name,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  Fixture *f = user_data;

  g_variant_get (parameters, "(ut)", &f->hello_pid, &f->hello_inode);
  g_object_set_data (G_OBJECT (invocation), "fixture", f);
  procwatch_process_monitor_watch_dbus_sender_async (f->monitor, connection, sender, NULL,
                                                     on_watched_reply, g_object_ref (invocation));
}

static const GDBusInterfaceVTable vtable = { on_method_call, NULL, NULL, { 0 } };

/* Serves the one interface of @xml at @path on @connection. */
static void
register_interface (Fixture                    *f,
                    GDBusConnection            *connection,
                    const char                 *xml,
                    const char                 *path,
                    const GDBusInterfaceVTable *interface_vtable)
{
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (xml, NULL);
  g_autoptr(GError) error = NULL;

  f->registration = g_dbus_connection_register_object (connection, path, info->interfaces[0],
                                                       interface_vtable, f, NULL, &error);
  g_assert_no_error (error);
}

static void
register_service (Fixture         *f,
                  GDBusConnection *connection)
{
  register_interface (f, connection, introspection_xml, "/org/gioprocwatch/Test", &vtable);
}

static void
fixture_set_up (Fixture *f)
{
  f->monitor = procwatch_process_monitor_new ();
  f->recorder = test_recorder_new (f->monitor);
}

static void
bus_set_up (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture_set_up (f);
  f->bus = test_bus_up (data);
  f->connection = g_dbus_connection_new_for_address_sync (f->bus->address,
                                                          G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                          NULL, NULL, &error);
  g_assert_no_error (error);
  register_service (f, f->connection);
}

/* A message bus that tells no pid, as a bus in another pid namespace or a
 * very old one: the two methods a bus connection and the library call. */
static const char pidless_bus_xml[] =
  "<node>"
  "  <interface name='org.freedesktop.DBus'>"
  "    <method name='Hello'>"
  "      <arg type='s' name='name' direction='out'/>"
  "    </method>"
  "    <method name='GetConnectionCredentials'>"
  "      <arg type='s' name='name' direction='in'/>"
  "      <arg type='a{sv}' name='credentials' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

static void
on_pidless_bus_call (GDBusConnection       *connection,
                     const char            *sender,
                     const char            *object_path,
                     const char            *interface_name,
                     const char            *method_name,
                     GVariant              *parameters,
                     GDBusMethodInvocation *invocation,
                     gpointer               user_data)
{
  if (g_strcmp0 (method_name, "Hello") == 0)
    {
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", ":1.1"));
    }
  else
    {
      GVariantBuilder credentials;

      g_variant_builder_init (&credentials, G_VARIANT_TYPE ("a{sv}"));
      g_variant_builder_add (&credentials, "{sv}", "UnixUserID", g_variant_new_uint32 (getuid ()));
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a{sv})", &credentials));
    }
}

static const GDBusInterfaceVTable pidless_bus_vtable = { on_pidless_bus_call, NULL, NULL, { 0 } };

static gboolean
on_new_connection (GDBusServer     *server,
                   GDBusConnection *connection,
                   gpointer         user_data)
{
  Fixture *f = user_data;

  g_assert_null (f->connection);
  f->connection = g_object_ref (connection);
  if (f->pidless_bus)
    register_interface (f, connection, pidless_bus_xml, "/org/freedesktop/DBus",
                        &pidless_bus_vtable);
  else
    register_service (f, connection);

  /* GDBus may or may not have seen the hang-up by now: the library does
   * not ask GDBus, the socket tells. */
  if (f->hung_up_peer != NULL)
    {
      g_autofree char *line = read_client_line (f->hung_up_peer);

      g_assert_cmpstr (line, ==, "closed");
      procwatch_process_monitor_watch_dbus_sender_async (f->monitor, connection, NULL, NULL,
                                                         on_watched, f);
    }

  return TRUE;
}

static void
peer_set_up (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *guid = g_dbus_generate_guid ();
  g_autofree char *address = NULL;

  fixture_set_up (f);
  f->server_dir = g_dir_make_tmp ("procwatch-dbus-XXXXXX", &error);
  g_assert_no_error (error);
  /* @data: another address to listen on, where anyone may connect. */
  address = data != NULL ? g_strdup (data) : g_strdup_printf ("unix:dir=%s", f->server_dir);
  f->server = g_dbus_server_new_sync (address,
                                      data != NULL ? G_DBUS_SERVER_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS
                                                   : G_DBUS_SERVER_FLAGS_NONE,
                                      guid, NULL, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (f->server, "new-connection", G_CALLBACK (on_new_connection), f);
  g_dbus_server_start (f->server);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->registration != 0)
    g_dbus_connection_unregister_object (f->connection, f->registration);
  if (f->connection != NULL)
    g_dbus_connection_close_sync (f->connection, NULL, NULL);
  g_clear_object (&f->connection);
  if (f->server != NULL)
    g_dbus_server_stop (f->server);
  g_clear_object (&f->server);
  if (f->server_dir != NULL)
    g_rmdir (f->server_dir);
  g_free (f->server_dir);
  g_clear_object (&f->process);
  g_clear_error (&f->error);
  test_recorder_free (f->recorder);
  procwatch_process_monitor_close (f->monitor);
  g_object_unref (f->monitor);
  g_clear_pointer (&f->bus, test_bus_down);
}

static const char *
client_address (Fixture *f)
{
  return f->bus != NULL ? f->bus->address
                        : g_dbus_server_get_client_address (f->server);
}

static GSubprocess *
spawn_client (Fixture    *f,
              const char *mode)
{
  const char *client = g_getenv ("PROCWATCH_TEST_DBUS_CLIENT");
  const char *destination = f->bus != NULL ? g_dbus_connection_get_unique_name (f->connection) : "-";
  g_autoptr(GError) error = NULL;
  GSubprocess *subprocess;

  g_assert_nonnull (client);
  subprocess = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                 &error, client, client_address (f), destination, mode, NULL);
  g_assert_no_error (error);

  return subprocess;
}

/* Blocks: only for lines a client prints without waiting for us. */
static char *
read_client_line (GSubprocess *client)
{
  g_autoptr(GDataInputStream) lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (client));
  g_autoptr(GError) error = NULL;
  char *line;

  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (lines), FALSE);
  g_buffered_input_stream_set_buffer_size (G_BUFFERED_INPUT_STREAM (lines), 1);
  line = g_data_input_stream_read_line (lines, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);

  return line;
}

static void
tell_client_to_exit (GSubprocess *client)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (g_subprocess_get_stdin_pipe (client), NULL, &error);
  g_assert_no_error (error);
}

static void
watch_sender (Fixture    *f,
              const char *sender)
{
  f->watched = FALSE;
  g_clear_object (&f->process);
  g_clear_error (&f->error);
  procwatch_process_monitor_watch_dbus_sender_async (f->monitor, f->connection, sender, NULL,
                                                     on_watched, f);
  g_assert_false (f->watched);
  test_run_until (NULL, &f->watched);
}

/* A client calls; the service watches it from its handler: the client's
 * own process, found the way the bus or kernel offers; then its exit. */
static void
assert_caller_watched (Fixture    *f,
                       const char *expected_via)
{
  g_autoptr(GSubprocess) client = spawn_client (f, "call");
  g_autofree char *line = NULL;
  GPid pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (client), NULL, 10);
  TestEvent *exited;
  TestEvent *reaped;

  test_run_until (NULL, &f->watched);
  g_assert_no_error (f->error);
  g_test_message ("the caller was found by %s", via_name (f->via));
  g_assert_cmpstr (via_name (f->via), ==, expected_via);
  g_assert_true (PROCWATCH_IS_PROCESS (f->process));
  g_assert_cmpint (procwatch_process_get_pid (f->process), ==, pid);
  g_assert_cmpuint (f->hello_pid, ==, pid);
  /* The client's own pidfs inode: the very process, not only its pid. */
  g_assert_cmpuint (procwatch_process_get_inode (f->process), ==, f->hello_inode);
  g_assert_cmpint (procwatch_process_get_state (f->process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  line = read_client_line (client);
  g_assert_cmpstr (line, ==, "called");

  tell_client_to_exit (client);
  test_run_until_count (NULL, &f->recorder->n_reaped, 1);
  exited = test_recorder_find (f->recorder, pid, PROCWATCH_PROCESS_STATE_EXITED);
  reaped = test_recorder_find (f->recorder, pid, PROCWATCH_PROCESS_STATE_REAPED);
  g_assert_nonnull (exited);
  g_assert_nonnull (reaped);
  g_assert_true (exited->process == f->process);
  g_assert_true (reaped->process == f->process);
  g_assert_cmpuint (test_recorder_count (f->recorder, pid, PROCWATCH_PROCESS_STATE_EXITED), ==, 1);
}

static void
test_bus_caller (Fixture       *f,
                 gconstpointer  data)
{
  if (test_skip_without_pidfd ())
    return;

  assert_caller_watched (f, expected_bus_via (f->connection, f->bus->kind));
}

static void
on_name_appeared (GDBusConnection *connection,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  int *seen = user_data;

  g_assert_cmpint (*seen, ==, 0);
  *seen = 1;
}

static void
on_name_vanished (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  int *seen = user_data;

  if (*seen == 1)
    *seen = 2;
}

/* A caller whose connection the bus has seen close. */
static void
test_bus_disconnected (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GSubprocess) client = spawn_client (f, "connect");
  g_autofree char *name = read_client_line (client);
  int seen = 0;
  gboolean vanished = FALSE;
  guint watch;

  watch = g_bus_watch_name_on_connection (f->connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                          on_name_appeared, on_name_vanished, &seen, NULL);
  while (seen != 1)
    g_main_context_iteration (NULL, TRUE);
  tell_client_to_exit (client);
  while (!vanished)
    {
      g_main_context_iteration (NULL, TRUE);
      vanished = seen == 2;
    }
  g_bus_unwatch_name (watch);

  watch_sender (f, name);
  g_assert_error (f->error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
  g_assert_null (f->process);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->monitor)), ==, 0);

  /* A name that never was. */
  watch_sender (f, ":1.4000000");
  g_assert_error (f->error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
}

/* The monitor's rules: a closed monitor, a cancelled call. */
static void
test_bus_closed_and_cancelled (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  const char *own_name = g_dbus_connection_get_unique_name (f->connection);

  g_cancellable_cancel (cancellable);
  f->watched = FALSE;
  procwatch_process_monitor_watch_dbus_sender_async (f->monitor, f->connection, own_name,
                                                     cancellable, on_watched, f);
  g_assert_false (f->watched);
  test_run_until (NULL, &f->watched);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->monitor)), ==, 0);

  /* Cancelled while the bus is being asked: nothing is watched either. */
  g_clear_error (&f->error);
  g_clear_object (&cancellable);
  cancellable = g_cancellable_new ();
  f->watched = FALSE;
  procwatch_process_monitor_watch_dbus_sender_async (f->monitor, f->connection, own_name,
                                                     cancellable, on_watched, f);
  g_cancellable_cancel (cancellable);
  g_assert_false (f->watched);
  test_run_until (NULL, &f->watched);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->monitor)), ==, 0);

  if (test_have_pidfd ())
    {
      /* Ourselves, uncancelled: watched. */
      watch_sender (f, own_name);
      g_assert_no_error (f->error);
      g_assert_cmpint (procwatch_process_get_pid (f->process), ==, getpid ());
    }

  /* Closed while the bus is being asked, then closed before the call. */
  g_clear_error (&f->error);
  g_clear_object (&f->process);
  f->watched = FALSE;
  procwatch_process_monitor_watch_dbus_sender_async (f->monitor, f->connection, own_name,
                                                     NULL, on_watched, f);
  procwatch_process_monitor_close (f->monitor);
  test_run_until (NULL, &f->watched);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CLOSED);

  watch_sender (f, own_name);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CLOSED);
}

static void
test_peer_caller (Fixture       *f,
                  gconstpointer  data)
{
  if (test_skip_without_pidfd ())
    return;

  assert_caller_watched (f, expected_peer_via ());
}

/* A peer that hung up while alive (its pid still its own, so only the
 * hang-up tells), and one that has exited and been reaped: both CLOSED,
 * never a watch. */
static void
test_peer_hung_up (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GSubprocess) alive = NULL;
  g_autoptr(GSubprocess) gone = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;

  if (test_skip_without_pidfd ())
    return;

  expected_peer_via ();

  alive = spawn_client (f, "hangup");
  f->hung_up_peer = alive;
  test_run_until (NULL, &f->watched);
  f->hung_up_peer = NULL;
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  tell_client_to_exit (alive);
  g_subprocess_wait_check (alive, NULL, &error);
  g_assert_no_error (error);

  g_dbus_connection_unregister_object (f->connection, f->registration);
  f->registration = 0;
  g_clear_object (&f->connection);

  gone = spawn_client (f, "connect");
  g_clear_pointer (&line, g_free);
  while (f->connection == NULL)
    g_main_context_iteration (NULL, TRUE);
  line = read_client_line (gone);
  g_assert_cmpstr (line, ==, "connected");
  tell_client_to_exit (gone);
  g_subprocess_wait_check (gone, NULL, &error);
  g_assert_no_error (error);
  watch_sender (f, NULL);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CLOSED);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->monitor)), ==, 0);
}

static void
on_bus_connected (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GDBusConnection **connection = user_data;
  g_autoptr(GError) error = NULL;

  *connection = g_dbus_connection_new_for_address_finish (result, &error);
  g_assert_no_error (error);
}

/* A bus that does not tell the caller's process: NOT_SUPPORTED. */
static void
test_bus_without_pids (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GDBusConnection) bus = NULL;

  f->pidless_bus = TRUE;
  g_dbus_connection_new_for_address (g_dbus_server_get_client_address (f->server),
                                     G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                     G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                     NULL, NULL, on_bus_connected, &bus);
  while (bus == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (g_dbus_connection_get_unique_name (bus), ==, ":1.1");

  f->watched = FALSE;
  procwatch_process_monitor_watch_dbus_sender_async (f->monitor, bus, ":1.1", NULL, on_watched, f);
  test_run_until (NULL, &f->watched);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->monitor)), ==, 0);

  g_dbus_connection_close_sync (bus, NULL, NULL);
}

/* A peer over TCP: no unix socket, so no peer credentials. */
static void
test_peer_not_unix (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GDBusConnection) client = NULL;

  g_dbus_connection_new_for_address (g_dbus_server_get_client_address (f->server),
                                     G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT,
                                     NULL, NULL, on_bus_connected, &client);
  while (client == NULL || f->connection == NULL)
    g_main_context_iteration (NULL, TRUE);

  watch_sender (f, NULL);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->monitor)), ==, 0);

  g_dbus_connection_close_sync (client, NULL, NULL);
}

static void
on_session_freed (GDBusConnection *connection,
                  const char      *sender_name,
                  const char      *object_path,
                  const char      *interface_name,
                  const char      *signal_name,
                  GVariant        *parameters,
                  gpointer         user_data)
{
  guint *n_freed = user_data;

  (*n_freed)++;
}

static void
example_stats (Fixture    *f,
               const char *service,
               guint      *open,
               guint      *freed,
               guint      *fds)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_sync (f->connection, service, "/",
                                       "org.gioprocwatch.Example.Sessions", "Stats", NULL,
                                       G_VARIANT_TYPE ("(uuu)"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(uuu)", open, freed, fds);
}

static void
on_client_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  guint *n_done = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_wait_check_finish (G_SUBPROCESS (source), result, &error);
  g_assert_no_error (error);
  (*n_done)++;
}

/* examples/dbus-sessions: 200 callers open a session each and exit without
 * a word; every session is freed, and the service's fds are back where
 * they were. */
static void
test_example_sessions (Fixture       *f,
                       gconstpointer  data)
{
  const char *example = g_getenv ("PROCWATCH_TEST_DBUS_EXAMPLE");
  const char *client = g_getenv ("PROCWATCH_TEST_DBUS_CLIENT");
  const guint n_clients = 200;
  const guint batch = 25;
  g_autoptr(GSubprocess) service_process = NULL;
  g_autofree char *service = NULL;
  g_autoptr(GError) error = NULL;
  guint n_freed = 0;
  guint n_done = 0;
  guint open, freed, fds, baseline_fds;
  guint subscription;
  guint i;

  if (test_skip_without_pidfd ())
    return;

  g_assert_nonnull (example);
  g_assert_nonnull (client);
  service_process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, example,
                                      f->bus->address, NULL);
  g_assert_no_error (error);
  service = read_client_line (service_process);

  subscription = g_dbus_connection_signal_subscribe (f->connection, service,
                                                     "org.gioprocwatch.Example.Sessions",
                                                     "SessionFreed", "/", NULL,
                                                     G_DBUS_SIGNAL_FLAGS_NONE,
                                                     on_session_freed, &n_freed, NULL);

  /* One caller first: the monitor's own descriptors exist from then on. */
  for (i = 0; i < n_clients + 1; i++)
    {
      g_autoptr(GSubprocess) caller = NULL;

      caller = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, client,
                                 f->bus->address, service, "call-exit",
                                 "org.gioprocwatch.Example.Sessions.Open", NULL);
      g_assert_no_error (error);
      g_subprocess_wait_check_async (caller, NULL, on_client_done, &n_done);

      if (i == 0)
        {
          test_run_until_count (NULL, &n_freed, 1);
          example_stats (f, service, &open, &freed, &baseline_fds);
          g_assert_cmpuint (open, ==, 0);
          g_assert_cmpuint (freed, ==, 1);
        }
      else if (i % batch == 0)
        test_run_until_count (NULL, &n_done, i + 1);
    }

  test_run_until_count (NULL, &n_done, n_clients + 1);
  test_run_until_count (NULL, &n_freed, n_clients + 1);
  example_stats (f, service, &open, &freed, &fds);
  g_test_message ("%u sessions freed; service fds: %u at the start, %u at the end",
                  freed, baseline_fds, fds);
  g_assert_cmpuint (open, ==, 0);
  g_assert_cmpuint (freed, ==, n_clients + 1);
  g_assert_cmpuint (n_freed, ==, n_clients + 1);
  g_assert_cmpuint (fds, ==, baseline_fds);

  g_dbus_connection_signal_unsubscribe (f->connection, subscription);
  g_subprocess_send_signal (service_process, SIGTERM);
  g_subprocess_wait (service_process, NULL, &error);
  g_assert_no_error (error);
}

static void
test_no_bus (gconstpointer data)
{
  const char *name = data;

  if (g_getenv ("PROCWATCH_TEST_REQUIRE_DBUS_BROKER") != NULL && g_str_equal (name, "dbus-broker"))
    g_test_fail_printf ("no %s in PATH, and PROCWATCH_TEST_REQUIRE_DBUS_BROKER is set", name);
  else
    g_test_skip_printf ("no %s in PATH", name);
}

/* The cases on a message bus, once for each implementation: each is
 * skipped where that one is not installed. */
static void
add_bus_tests (const BusKind *kind)
{
  static const struct
  {
    const char *name;
    void (*func) (Fixture *f, gconstpointer data);
  } cases[] = {
    { "caller", test_bus_caller },
    { "disconnected", test_bus_disconnected },
    { "closed-and-cancelled", test_bus_closed_and_cancelled },
    { "example-sessions", test_example_sessions },
  };
  g_autofree char *program = g_find_program_in_path (kind->name);
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/dbus-sender/%s/%s", kind->name, cases[i].name);

      if (program != NULL)
        g_test_add (path, Fixture, kind, bus_set_up, cases[i].func, fixture_tear_down);
      else
        g_test_add_data_func (path, kind->name, test_no_bus);
    }
}

int
main (int   argc,
      char *argv[])
{
  gsize i;

  test_init (&argc, &argv);

  for (i = 0; i < G_N_ELEMENTS (bus_kinds); i++)
    add_bus_tests (&bus_kinds[i]);
  g_test_add ("/dbus-sender/bus/without-pids", Fixture, NULL,
              peer_set_up, test_bus_without_pids, fixture_tear_down);
  g_test_add ("/dbus-sender/peer/caller", Fixture, NULL,
              peer_set_up, test_peer_caller, fixture_tear_down);
  g_test_add ("/dbus-sender/peer/not-unix", Fixture, "tcp:host=127.0.0.1",
              peer_set_up, test_peer_not_unix, fixture_tear_down);
  g_test_add ("/dbus-sender/peer/hung-up", Fixture, NULL,
              peer_set_up, test_peer_hung_up, fixture_tear_down);

  return g_test_run ();
}
