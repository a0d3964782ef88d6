/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * dbus-sessions [ADDRESS]: a D-Bus service that keeps state for each caller
 * and frees it when the caller's process dies, as portals and session
 * services must. It connects to the message bus at ADDRESS (the session
 * bus without one), prints its unique name, and serves, on /:
 *
 *   org.gioprocwatch.Example.Sessions.Open ()
 *       opens a session for the calling connection (once per connection)
 *   org.gioprocwatch.Example.Sessions.Stats () -> (open, freed, fds)
 *       sessions open now, sessions freed so far, file descriptors open
 *   signal SessionFreed (s sender), once per freed session
 *
 * A caller's process is watched from the first call on, and its sessions
 * are freed when it exits: no client has to say goodbye.
 */

#include <stdio.h>

#include <gio-procwatch/procwatch.h>

static const char introspection_xml[] =
  "<node>"
  "  <interface name='org.gioprocwatch.Example.Sessions'>"
  "    <method name='Open'/>"
  "    <method name='Stats'>"
  "      <arg type='u' name='open' direction='out'/>"
  "      <arg type='u' name='freed' direction='out'/>"
  "      <arg type='u' name='fds' direction='out'/>"
  "    </method>"
  "    <signal name='SessionFreed'>"
  "      <arg type='s' name='sender'/>"
  "    </signal>"
  "  </interface>"
  "</node>";

typedef struct
{
  GDBusConnection *connection;
  ProcwatchProcessMonitor *monitor;
  /* Sender → its process, for each open session. A process can have
   * several connections, so several sessions. */
  GHashTable *sessions;
  guint freed;
} Service;

/* What the service keeps for one call: the invocation to answer. */
typedef struct
{
  Service *service;
  GDBusMethodInvocation *invocation;
} PendingOpen;

static guint
count_open_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;

  return n;
}

static void
free_sessions_of (Service          *service,
                  ProcwatchProcess *process)
{
  GHashTableIter iter;
  gpointer sender;
  gpointer owner;
  g_autoptr(GPtrArray) freed = g_ptr_array_new_with_free_func (g_free);
  guint i;

  /* One process has few connections: a walk is fine for an example. A
   * service with many sessions per process would index them by process. */
  g_hash_table_iter_init (&iter, service->sessions);
  while (g_hash_table_iter_next (&iter, &sender, &owner))
    {
      if (owner == process)
        {
          g_ptr_array_add (freed, g_strdup (sender));
          g_hash_table_iter_remove (&iter);
        }
    }

  for (i = 0; i < freed->len; i++)
    {
      service->freed++;
      g_dbus_connection_emit_signal (service->connection, NULL, "/",
                                     "org.gioprocwatch.Example.Sessions", "SessionFreed",
                                     g_variant_new ("(s)", (const char *) freed->pdata[i]), NULL);
    }
}

static void
on_caller_exited (ProcwatchProcessMonitor *monitor,
                  ProcwatchProcess        *process,
                  gpointer                 user_data)
{
  Service *service = user_data;

  free_sessions_of (service, process);

  /* Its reaping is not our business: the pidfd can go now. */
  procwatch_process_monitor_unwatch_process (monitor, process);
}

static void
on_caller_watched (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  PendingOpen *pending = user_data;
  Service *service = pending->service;
  GDBusMethodInvocation *invocation = pending->invocation;
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_free (pending);

  process = procwatch_process_monitor_watch_dbus_sender_finish (service->monitor, result, &error);
  if (process == NULL)
    {
      /* Gone already (NameHasNoOwner), or its process cannot be told. */
      g_dbus_method_invocation_take_error (invocation, g_steal_pointer (&error));
      return;
    }

  /* Its process may have exited while we asked (if it was watched
   * already, "exited" may have been emitted): then there is no session
   * to keep. */
  if (procwatch_process_get_state (process) != PROCWATCH_PROCESS_STATE_RUNNING)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER,
                                             "The caller has exited");
      return;
    }

  g_hash_table_insert (service->sessions, g_strdup (sender), g_steal_pointer (&process));
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
  Service *service = user_data;

  if (g_strcmp0 (method_name, "Stats") == 0)
    {
      g_dbus_method_invocation_return_value (invocation,
                                             g_variant_new ("(uuu)",
                                                            g_hash_table_size (service->sessions),
                                                            service->freed,
                                                            count_open_fds ()));
    }
  else if (g_hash_table_contains (service->sessions, sender))
    {
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
  else
    {
      PendingOpen *pending = g_new0 (PendingOpen, 1);

      pending->service = service;
      pending->invocation = invocation;
      procwatch_process_monitor_watch_dbus_sender_async (service->monitor, connection, sender,
                                                         NULL, on_caller_watched, pending);
    }
}

static const GDBusInterfaceVTable vtable = { on_method_call, NULL, NULL, { 0 } };

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (introspection_xml, NULL);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  Service service = { 0, };

  if (argc > 1)
    service.connection = g_dbus_connection_new_for_address_sync (argv[1],
                                                                 G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                                 G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                                 NULL, NULL, &error);
  else
    service.connection = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (service.connection == NULL)
    {
      fprintf (stderr, "dbus-sessions: %s\n", error->message);
      return 1;
    }

  service.monitor = procwatch_process_monitor_new ();
  service.sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_signal_connect (service.monitor, "exited", G_CALLBACK (on_caller_exited), &service);

  if (g_dbus_connection_register_object (service.connection, "/", info->interfaces[0],
                                         &vtable, &service, NULL, &error) == 0)
    {
      fprintf (stderr, "dbus-sessions: %s\n", error->message);
      return 1;
    }

  /* The service ends with its bus connection. */
  g_signal_connect_swapped (service.connection, "closed", G_CALLBACK (g_main_loop_quit), loop);

  printf ("%s\n", g_dbus_connection_get_unique_name (service.connection));
  fflush (stdout);
  g_main_loop_run (loop);

  g_hash_table_unref (service.sessions);
  g_object_unref (service.monitor);
  g_object_unref (service.connection);

  return 0;
}
