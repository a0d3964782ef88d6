/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-dbus-test-bus dbus-daemon|dbus-broker DIR
 *
 * A private message bus for the tests, of either implementation, listening
 * on DIR/bus where anyone may connect, own any name and send anything. It
 * prints the bus address on a line of its own once clients can connect,
 * and runs until SIGTERM (or SIGINT); the test that starts it should also
 * set PR_SET_PDEATHSIG, and the bus then dies with the test too.
 *
 * dbus-daemon: this program writes DIR/bus.conf and becomes dbus-daemon.
 *
 * dbus-broker: the broker alone, without dbus-broker-launch (which needs
 * journald and systemd). This program is its launcher: the broker's
 * controller is a peer-to-peer D-Bus connection on a socketpair, on which
 * the launcher hands over a listening socket and its policy with
 * org.bus1.DBus.Broker.AddListener. The broker exits when its controller
 * hangs up, and is killed should this program die first. Its version is in
 * nothing it says on the bus: the tests take it from `dbus-broker
 * --version`.
 *
 * Exits 0 after a clean stop, 1 if the bus could not start or died.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <glib-unix.h>

static const char daemon_config[] =
  "<busconfig>"
  "  <type>session</type>"
  "  <listen>unix:path=%s/bus</listen>"
  "  <auth>EXTERNAL</auth>"
  "  <policy context='default'>"
  "    <allow send_destination='*' eavesdrop='true'/>"
  "    <allow eavesdrop='true'/>"
  "    <allow own='*'/>"
  "  </policy>"
  "</busconfig>";

static int
run_daemon (const char *dir)
{
  g_autofree char *config_path = g_build_filename (dir, "bus.conf", NULL);
  g_autofree char *config = g_strdup_printf (daemon_config, dir);
  g_autofree char *config_arg = g_strdup_printf ("--config-file=%s", config_path);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (config_path, config, -1, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  execlp ("dbus-daemon", "dbus-daemon", config_arg, "--nofork", "--print-address=1",
          (char *) NULL);
  g_printerr ("dbus-daemon: %s\n", g_strerror (errno));

  return 1;
}

/* The broker's policy (dbus-broker's src/launch/policy.c, policy_export(),
 * the same in versions 33 to 37): one batch for every uid, in which
 * connecting, owning any name (a prefix match on "") and sending and
 * receiving anything (empty strings match all, type 0 any type, broadcast
 * unset, 0 to G_MAXUINT64 fds) are allowed; no per-group batches, no
 * SELinux names, no AppArmor. */
static GVariant *
broker_policy (void)
{
  const char *xmit = "(btssssuutt)";
  g_autoptr(GVariant) allow_xmit = NULL;
  GVariantBuilder own, send, receive, users, groups, selinux;

  allow_xmit = g_variant_ref_sink (g_variant_new (xmit, TRUE, (guint64) 1, "", "", "", "", 0, 0,
                                                  (guint64) 0, G_MAXUINT64));
  g_variant_builder_init (&own, G_VARIANT_TYPE ("a(btbs)"));
  g_variant_builder_add (&own, "(btbs)", TRUE, (guint64) 1, TRUE, "");
  g_variant_builder_init (&send, G_VARIANT_TYPE ("a(btssssuutt)"));
  g_variant_builder_add_value (&send, allow_xmit);
  g_variant_builder_init (&receive, G_VARIANT_TYPE ("a(btssssuutt)"));
  g_variant_builder_add_value (&receive, allow_xmit);

  g_variant_builder_init (&users, G_VARIANT_TYPE ("a(u(bta(btbs)a(btssssuutt)a(btssssuutt)))"));
  g_variant_builder_add (&users, "(u(bta(btbs)a(btssssuutt)a(btssssuutt)))", G_MAXUINT32,
                         TRUE, (guint64) 1, &own, &send, &receive);
  g_variant_builder_init (&groups, G_VARIANT_TYPE ("a(buu(bta(btbs)a(btssssuutt)a(btssssuutt)))"));
  g_variant_builder_init (&selinux, G_VARIANT_TYPE ("a(ss)"));

  return g_variant_new ("(a(u(bta(btbs)a(btssssuutt)a(btssssuutt)))"
                        "a(buu(bta(btbs)a(btssssuutt)a(btssssuutt)))a(ss)bs)",
                        &users, &groups, &selinux, FALSE, "");
}

/* A listening socket at @path, non-blocking: the broker accepts until
 * EAGAIN, and would block for good on a blocking one. */
static int
listen_at (const char  *path,
           GError     **error)
{
  struct sockaddr_un address = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof address.sun_path)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FILENAME_TOO_LONG, "%s: path too long", path);
      return -1;
    }
  strcpy (address.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || bind (fd, (struct sockaddr *) &address, sizeof address) < 0 || listen (fd, 128) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "%s: %s", path,
                   g_strerror (saved_errno));
      if (fd >= 0)
        close (fd);
      return -1;
    }

  return fd;
}

static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/* Starts dbus-broker with the controller on @controller_fd (taken). */
static GSubprocess *
spawn_broker (int      controller_fd,
              GError **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree char *machine_id = g_dbus_generate_guid ();

  /* Its stdout is not ours: a test reading our address never waits on it. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  g_subprocess_launcher_take_fd (launcher, controller_fd, 3);

  return g_subprocess_launcher_spawn (launcher, error, "dbus-broker", "--controller", "3",
                                      "--machine-id", machine_id, NULL);
}

static GDBusConnection *
connect_controller (int      fd,
                    GError **error)
{
  g_autoptr(GSocket) socket = g_socket_new_from_fd (fd, error);
  g_autoptr(GSocketConnection) stream = NULL;

  if (socket == NULL)
    {
      close (fd);
      return NULL;
    }
  stream = g_socket_connection_factory_create_connection (socket);

  return g_dbus_connection_new_sync (G_IO_STREAM (stream), NULL,
                                     G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT,
                                     NULL, NULL, error);
}

static gboolean
add_listener (GDBusConnection  *controller,
              const char       *path,
              GError          **error)
{
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
  g_autoptr(GVariant) reply = NULL;
  int listener = listen_at (path, error);
  int index;

  if (listener < 0)
    return FALSE;
  index = g_unix_fd_list_append (fds, listener, error);
  close (listener);
  if (index < 0)
    return FALSE;

  reply = g_dbus_connection_call_with_unix_fd_list_sync (controller, NULL, "/org/bus1/DBus/Broker",
                                                         "org.bus1.DBus.Broker", "AddListener",
                                                         g_variant_new ("(ohv)",
                                                                        "/org/bus1/DBus/Listener/0",
                                                                        index, broker_policy ()),
                                                         G_VARIANT_TYPE_UNIT,
                                                         G_DBUS_CALL_FLAGS_NONE, -1, fds, NULL,
                                                         NULL, error);

  return reply != NULL;
}

typedef struct
{
  GMainLoop *loop;
  gboolean stopping;
  gboolean clean_exit;
} Broker;

static gboolean
on_stop (gpointer user_data)
{
  Broker *broker = user_data;

  if (!broker->stopping)
    g_main_loop_quit (broker->loop);
  broker->stopping = TRUE;

  return G_SOURCE_CONTINUE;
}

static void
on_broker_exited (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Broker *broker = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_check_finish (G_SUBPROCESS (source), result, &error))
    g_printerr ("dbus-broker: %s\n", error->message);
  else if (!broker->stopping)
    g_printerr ("dbus-broker exited by itself\n");
  broker->clean_exit = error == NULL && broker->stopping;
  g_main_loop_quit (broker->loop);
}

static int
run_broker (const char *dir)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDBusConnection) controller = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autofree char *path = g_build_filename (dir, "bus", NULL);
  g_autofree char *escaped = g_dbus_address_escape_value (path);
  g_autoptr(GError) error = NULL;
  Broker broker = { loop, FALSE, FALSE };
  guint term, interrupt;
  int pair[2];

  term = g_unix_signal_add (SIGTERM, on_stop, &broker);
  interrupt = g_unix_signal_add (SIGINT, on_stop, &broker);

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
    {
      g_printerr ("socketpair: %s\n", g_strerror (errno));
      return 1;
    }
  process = spawn_broker (pair[1], &error);
  if (process == NULL)
    {
      close (pair[0]);
      g_printerr ("dbus-broker: %s\n", error->message);
      return 1;
    }
  controller = connect_controller (pair[0], &error);
  if (controller == NULL || !add_listener (controller, path, &error))
    {
      g_printerr ("dbus-broker's controller: %s\n", error->message);
      g_subprocess_force_exit (process);
      g_subprocess_wait (process, NULL, NULL);
      return 1;
    }
  g_print ("unix:path=%s\n", escaped);
  fflush (stdout);

  g_subprocess_wait_check_async (process, NULL, on_broker_exited, &broker);
  g_main_loop_run (loop);
  if (broker.stopping)
    {
      /* Hung up on, the broker closes its listener and exits. */
      g_dbus_connection_close_sync (controller, NULL, NULL);
      g_main_loop_run (loop);
    }
  g_source_remove (term);
  g_source_remove (interrupt);

  return broker.clean_exit ? 0 : 1;
}

int
main (int   argc,
      char *argv[])
{
  if (argc != 3)
    {
      g_printerr ("usage: %s dbus-daemon|dbus-broker DIR\n", argv[0]);
      return 1;
    }
  if (g_str_equal (argv[1], "dbus-daemon"))
    return run_daemon (argv[2]);
  if (g_str_equal (argv[1], "dbus-broker"))
    return run_broker (argv[2]);

  g_printerr ("%s: unknown bus\n", argv[1]);
  return 1;
}
