/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch's D-Bus names (--dbus-name, --system): the process that owns
 * each name, asked of the bus and watched as the library watches a D-Bus
 * caller.
 */

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-bus.h"
#include "procwatch-options.h"
#include "procwatch-output.h"

/* A bus request awaited while the main context runs. Held by the caller
 * and by the callback: a timeout may stop the wait, and the request's
 * callback then comes later, to this alone. */
typedef struct
{
  GAsyncResult *result;
} BusRequest;

static void
bus_request_clear (BusRequest *request)
{
  g_clear_object (&request->result);
}

static void
bus_request_unref (BusRequest *request)
{
  g_rc_box_release_full (request, (GDestroyNotify) bus_request_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BusRequest, bus_request_unref)

static void
on_bus_request_done (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  BusRequest *request = user_data;

  request->result = g_object_ref (result);
  bus_request_unref (request);
}

/* The callback's reference is the second one. */
static BusRequest *
bus_request_new (void)
{
  return g_rc_box_acquire (g_rc_box_new0 (BusRequest));
}

/* Runs the main context until @request is answered, or -t expires: the
 * bus may be slow, and -t bounds the whole run. */
static GAsyncResult *
await_bus_request (Tool        *tool,
                   BusRequest  *request,
                   GError     **error)
{
  while (request->result == NULL && !tool->timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (request->result == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, _("Timeout expired"));
  return request->result;
}

/* The process that owns the bus name @name: its unique name from the bus,
 * then the library asks the bus for that connection's process. */
static ProcwatchProcess *
watch_bus_name_owner (Tool             *tool,
                      GDBusConnection  *bus,
                      const char       *name,
                      GError          **error)
{
  g_autoptr(BusRequest) owner_request = bus_request_new ();
  g_autoptr(BusRequest) sender_request = NULL;
  g_autoptr(GVariant) reply = NULL;
  GAsyncResult *result;
  const char *owner;

  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetNameOwner", g_variant_new ("(s)", name),
                          G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, -1, tool->cancellable,
                          on_bus_request_done, owner_request);
  if ((result = await_bus_request (tool, owner_request, error)) == NULL ||
      (reply = g_dbus_connection_call_finish (bus, result, error)) == NULL)
    return NULL;

  g_variant_get (reply, "(&s)", &owner);
  tool_debug (tool, "bus name %s is owned by %s", name, owner);

  /* The bus answers its own name, org.freedesktop.DBus, with that name:
   * the bus is no connection, and has no connection's credentials. */
  if (!g_dbus_is_unique_name (owner))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("it is owned by the bus itself, not by a connection"));
      return NULL;
    }

  sender_request = bus_request_new ();
  procwatch_process_monitor_watch_dbus_sender_async (tool->monitor, bus, owner,
                                                     tool->cancellable, on_bus_request_done,
                                                     sender_request);
  if ((result = await_bus_request (tool, sender_request, error)) == NULL)
    return NULL;

  return procwatch_process_monitor_watch_dbus_sender_finish (tool->monitor, result, error);
}

/* --dbus-name: each owner is a process like those named by PID, watched
 * before any of those so that none of their events comes while the bus
 * is being asked. Returns -1 to go on (*@unsupported set if -e let a
 * missing kernel feature pass), or the exit status to stop with. */
int
tool_watch_bus_names (Tool        *tool,
                      ToolOptions *options,
                      gboolean    *unsupported)
{
  GBusType bus_type = options->system_bus ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION;
  g_autoptr(BusRequest) connect_request = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *result;
  guint i;

  if (options->dbus_names->len == 0)
    return -1;

  connect_request = bus_request_new ();

  g_bus_get (bus_type, tool->cancellable, on_bus_request_done, connect_request);
  if ((result = await_bus_request (tool, connect_request, &error)) != NULL)
    bus = g_bus_get_finish (result, &error);
  if (tool->timed_out)
    return -1;
  if (bus == NULL)
    {
      tool_warn (options->system_bus ? _("cannot connect to the system bus: %s")
                                     : _("cannot connect to the session bus: %s"), error->message);
      return TOOL_EXIT_FAILURE;
    }
  /* The bus going away ends nothing: the owners are watched by pidfd. */
  g_dbus_connection_set_exit_on_close (bus, FALSE);

  for (i = 0; i < options->dbus_names->len; i++)
    {
      const char *name = g_ptr_array_index (options->dbus_names, i);
      g_autoptr(ProcwatchProcess) process = NULL;
      ToolTarget target = { 0, NULL, 0, FALSE };

      g_clear_error (&error);
      process = watch_bus_name_owner (tool, bus, name, &error);
      if (process == NULL)
        {
          gboolean no_owner = g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
          gboolean not_supported = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);

          /* The timeout has had its say; nothing more is watched. */
          if (tool->timed_out)
            return -1;

          /* An owner that is gone (or was just leaving) is what -e allows. */
          if (tool->allow_exited &&
              (no_owner || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)))
            {
              tool_debug (tool, "bus name %s has no owner, skipping", name);
              continue;
            }

          if (no_owner)
            /* Translators: %s is a D-Bus name such as org.example.App. */
            tool_warn (_("no process owns the bus name '%s'"), name);
          else
            tool_warn (_("cannot watch the owner of bus name '%s': %s"), name, error->message);

          /* As for a process given by PID: -e reports an owner that
           * cannot be watched and goes on; the exit status tells. */
          if (tool->allow_exited)
            {
              if (not_supported)
                *unsupported = TRUE;
              else
                tool->failed = TRUE;
              continue;
            }
          return not_supported ? TOOL_EXIT_UNSUPPORTED : TOOL_EXIT_FAILURE;
        }

      target.pid = procwatch_process_get_pid (process);
      target.name = tool_target_name (process, target.pid);
      tool_add_target (tool, process, &target);
    }

  return -1;
}
