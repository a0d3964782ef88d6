/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <signal.h>
#include <unistd.h>

#include "procwatch-apps-private.h"
#include "procwatch-cgroup-private.h"
#include "procwatch-cgroup-signal-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-cgroup-watch-private.h"
#include "procwatch-waits-private.h"

/**
 * ProcwatchCgroup:
 *
 * A cgroup (version 2) that a [class@Procwatch.ProcessMonitor] watches,
 * as from [method@Procwatch.ProcessMonitor.watch_cgroup]: tells whether
 * any process is in it or in a cgroup below it, and when none is left.
 *
 * A desktop starts each application in a cgroup of its own (a systemd
 * scope, such as `app-gnome-org.gnome.Calculator-4242.scope`), which holds
 * every process of the application: those it forks and that outlive the
 * process that was launched too. The cgroup is empty when the
 * application is gone.
 *
 * The state comes from the kernel's `cgroup.events`, which the monitor
 * reads again at every notification and takes as the truth. The kernel
 * sends at most one notification per about 10 ms and merges the rest:
 * a cgroup that empties and fills again within that time may be seen as
 * populated all along.
 *
 * Where the cgroup is an application's unit, named by its application id
 * as systemd's "Desktop Environments" document says,
 * [property@Procwatch.Cgroup:app-id] tells the id; the cgroups of the
 * running instances of an application are found with
 * [func@Procwatch.Cgroup.find_app_instances], and every process of one is
 * signalled at once, none escaping by forking, with
 * [method@Procwatch.Cgroup.send_signal_async]. See the [Watching
 * apps](apps.html) guide.
 *
 * The object stays valid for as long as you hold a reference, also after
 * the monitor has stopped watching the cgroup; its
 * [property@Procwatch.Cgroup:populated] then no longer changes.
 *
 * Since: 1.2
 */

struct _ProcwatchCgroup
{
  GObject parent_instance;

  char *path;
  char *app_id;
  gboolean populated;

  /* While watched; cleared by the monitor when watching stops. */
  ProcwatchCgroupWatch *watch;

  /* Waits for the cgroup to be empty; they hold references to it. */
  ProcwatchWaits waits;
};

enum {
  PROP_0,
  PROP_PATH,
  PROP_POPULATED,
  PROP_APP_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];


G_DEFINE_FINAL_TYPE (ProcwatchCgroup, procwatch_cgroup, G_TYPE_OBJECT)

static void
procwatch_cgroup_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  ProcwatchCgroup *self = PROCWATCH_CGROUP (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;

    case PROP_POPULATED:
      g_value_set_boolean (value, self->populated);
      break;

    case PROP_APP_ID:
      g_value_set_string (value, self->app_id);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
procwatch_cgroup_finalize (GObject *object)
{
  ProcwatchCgroup *self = PROCWATCH_CGROUP (object);

  g_free (self->path);
  g_free (self->app_id);

  G_OBJECT_CLASS (procwatch_cgroup_parent_class)->finalize (object);
}

static void
procwatch_cgroup_class_init (ProcwatchCgroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = procwatch_cgroup_finalize;
  object_class->get_property = procwatch_cgroup_get_property;

  /**
   * ProcwatchCgroup:path:
   *
   * The path of the cgroup: see [method@Procwatch.Cgroup.get_path].
   *
   * Since: 1.2
   */
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchCgroup:populated:
   *
   * Whether a process is in the cgroup or in one below it, as last read
   * from the kernel: see [method@Procwatch.Cgroup.get_populated].
   * Notified at every change the monitor sees, in the monitor's main
   * context.
   *
   * Since: 1.2
   */
  properties[PROP_POPULATED] =
    g_param_spec_boolean ("populated", NULL, NULL,
                          FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchCgroup:app-id:
   *
   * The application id that the cgroup's unit name carries, or `NULL`:
   * see [method@Procwatch.Cgroup.get_app_id]. It never changes.
   *
   * Since: 1.4
   */
  properties[PROP_APP_ID] =
    g_param_spec_string ("app-id", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
procwatch_cgroup_init (ProcwatchCgroup *self)
{
}

/* @path: relative to the cgroup2 mount, as the monitor read it. */
ProcwatchCgroup *
procwatch_cgroup_new (const char *path)
{
  ProcwatchCgroup *self = g_object_new (PROCWATCH_TYPE_CGROUP, NULL);

  self->path = g_strdup (path);
  self->app_id = procwatch_app_id_from_path (path);

  return self;
}

void
procwatch_cgroup_set_watch (ProcwatchCgroup      *self,
                            ProcwatchCgroupWatch *watch)
{
  self->watch = watch;
}

/* Watching stopped inside a call of the application (or the cgroup was
 * removed): the object stops being a way to reach the watch, and its
 * waits are settled from an idle, successfully if the cgroup was seen
 * empty. */
void
procwatch_cgroup_stopped (ProcwatchCgroup *self,
                          const char      *reason)
{
  g_autofree char *message = NULL;

  self->watch = NULL;

  if (self->populated)
    message = g_strdup_printf (/* Translators: %s is a cgroup path, then why, such as "the monitor was closed". */
                               _("Stopped waiting for cgroup %s: %s"), self->path, _(reason));
  procwatch_waits_settle_later (&self->waits, self->populated ? NULL : G_OBJECT (self),
                                message);
}

ProcwatchCgroupWatch *
procwatch_cgroup_get_watch (ProcwatchCgroup *self)
{
  return self->watch;
}

/* A silent store: returns the property if it changed, for the dispatch to
 * notify. */
GParamSpec *
procwatch_cgroup_set_populated (ProcwatchCgroup *self,
                                gboolean         populated)
{
  if (self->populated == !!populated)
    return NULL;

  self->populated = !!populated;
  return properties[PROP_POPULATED];
}

/* The oldest wait, for the dispatch to complete once the cgroup has been
 * seen empty; NULL when there is none. */
GTask *
procwatch_cgroup_pop_wait (ProcwatchCgroup *self)
{
  return procwatch_waits_pop (&self->waits);
}

/**
 * procwatch_cgroup_get_path:
 * @self: a cgroup
 *
 * Gets the path of the cgroup relative to the root of the cgroup v2
 * hierarchy, as `/proc/<pid>/cgroup` writes it (and
 * [method@Procwatch.Process.get_cgroup] gives it), such as
 * `/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Calculator-4242.scope`;
 * also when it was watched by its path under the cgroup2 mount point.
 * Where one cgroup was watched by several paths, the first.
 *
 * Returns: the path
 *
 * Since: 1.2
 */
const char *
procwatch_cgroup_get_path (ProcwatchCgroup *self)
{
  g_return_val_if_fail (PROCWATCH_IS_CGROUP (self), NULL);

  return self->path;
}

/**
 * procwatch_cgroup_get_populated:
 * @self: a cgroup
 *
 * Gets whether a process is in the cgroup or in a cgroup below it, as the
 * monitor last read it from the kernel (`populated` in `cgroup.events`).
 * An exiting process leaves the cgroup when it terminates, before it is a
 * zombie that anyone could reap.
 *
 * Returns: true if the cgroup is populated
 *
 * Since: 1.2
 */
gboolean
procwatch_cgroup_get_populated (ProcwatchCgroup *self)
{
  g_return_val_if_fail (PROCWATCH_IS_CGROUP (self), FALSE);

  return self->populated;
}

/**
 * procwatch_cgroup_wait_empty_async:
 * @self: a cgroup
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async): the function to call when the cgroup is empty
 * @user_data: data for @callback
 *
 * Waits until no process is left in the cgroup (nor in a cgroup below
 * it). If it is empty already ([property@Procwatch.Cgroup:populated] is
 * false), the wait completes at once, from the main loop.
 *
 * The wait fails with `G_IO_ERROR_CANCELLED` (in the
 * [error@Gio.IOErrorEnum] domain) when @cancellable is cancelled or when
 * watching stops before the cgroup is seen empty
 * ([method@Procwatch.ProcessMonitor.unwatch_cgroup], or the monitor is
 * closed), and with `G_IO_ERROR_CLOSED` at once if the cgroup was
 * populated and no longer watched when this was called. @callback is
 * called from the thread-default main context of the caller, never from
 * inside this call.
 *
 * Since: 1.2
 */
void
procwatch_cgroup_wait_empty_async (ProcwatchCgroup     *self,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PROCWATCH_IS_CGROUP (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, procwatch_cgroup_wait_empty_async);
  g_task_set_name (task, "[gio-procwatch] cgroup wait");

  if (g_task_return_error_if_cancelled (task))
    return;

  if (!self->populated)
    g_task_return_pointer (task, g_object_ref (self), g_object_unref);
  else if (self->watch == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED,
                             /* Translators: %s is a cgroup path. */
                             _("Cannot wait for cgroup %s: it is not watched any more"),
                             self->path);
  else
    procwatch_waits_add (&self->waits, task, g_object_ref (self), g_object_unref);
}

/**
 * procwatch_cgroup_wait_empty_finish:
 * @self: a cgroup
 * @result: the result passed to the callback
 * @error: return location for an error
 *
 * Finishes a wait started with [method@Procwatch.Cgroup.wait_empty_async].
 *
 * Returns: true if the cgroup is empty, false on error
 *
 * Since: 1.2
 */
gboolean
procwatch_cgroup_wait_empty_finish (ProcwatchCgroup  *self,
                                    GAsyncResult     *result,
                                    GError          **error)
{
  g_autoptr(ProcwatchCgroup) cgroup = NULL;

  g_return_val_if_fail (PROCWATCH_IS_CGROUP (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        procwatch_cgroup_wait_empty_async, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  cgroup = g_task_propagate_pointer (G_TASK (result), error);

  return cgroup != NULL;
}

/**
 * procwatch_cgroup_get_app_id:
 * @self: a cgroup
 *
 * Gets the application id that the name of the cgroup carries, where it
 * is the unit of an application as systemd's "Desktop Environments"
 * document names them: `app-[LAUNCHER-]APP_ID-RANDOM.scope` or
 * `app-[LAUNCHER-]APP_ID[@RANDOM].service`, with each `-` of the id
 * escaped as `\x2d`. So `app-gnome-org.gnome.Calculator-4242.scope`
 * (GNOME Shell), `app-flatpak-org.gnome.Calculator-12.scope` (Flatpak)
 * and `app-org.gnome.Calculator@1.service` all give
 * `org.gnome.Calculator`, and `app-gnome-firefox\x2desr-77.scope` gives
 * `firefox-esr`.
 *
 * The rule: with the random part taken off, a `-` left can only be the
 * one after the launcher (a `-` of the id is escaped), so the name is an
 * application's only with at most one there, and only if what follows it
 * (or all of it, with no launcher), unescaped, is a valid application id:
 * letters, digits, `_`, `-` and `.` between non-empty elements, at most
 * 255 bytes. Any other byte once unescaped, such as `\x00` or `\x20`,
 * makes the name no application's: it is not read as a shorter id.
 * Launchers are not looked up in a list: any launcher works.
 * Other cgroups (`app.slice`, `session.slice`, `dbus.service`) have none.
 *
 * Computed when the object is made, from the last element of
 * [method@Procwatch.Cgroup.get_path].
 *
 * Returns: (nullable): the application id, unescaped, or `NULL`
 *
 * Since: 1.4
 */
const char *
procwatch_cgroup_get_app_id (ProcwatchCgroup *self)
{
  g_return_val_if_fail (PROCWATCH_IS_CGROUP (self), NULL);

  return self->app_id;
}

/**
 * procwatch_cgroup_find_app_instances:
 * @app_id: an application id, such as `org.gnome.Calculator`
 * @under: (nullable): the cgroup to look below, in either form
 *   [method@Procwatch.ProcessMonitor.watch_cgroup] takes, or `NULL` for
 *   the calling user's systemd user manager
 * @error: return location for an error
 *
 * Finds the running instances of an application: the cgroups below
 * @under whose unit names carry @app_id (see
 * [method@Procwatch.Cgroup.get_app_id]), such as
 * `app-gnome-org.gnome.Calculator-4242.scope`, each one an instance, and
 * that have a process in them (an empty one that systemd has not removed
 * yet is no instance that runs). The
 * paths are in the form `/proc/<pid>/cgroup` writes (as is @under), sorted,
 * ready for [method@Procwatch.ProcessMonitor.watch_cgroup]; the cgroups
 * inside a unit are part of it and are not listed. An instance started
 * after this call is not included, and one listed may be gone by the time
 * it is watched (watch_cgroup then fails with `G_IO_ERROR_NOT_FOUND`: that
 * instance is gone).
 *
 * With @under `NULL`, the user manager is the `user@UID.service` (UID
 * being the caller's) in the caller's own cgroup path, as in
 * `/user.slice/user-1000.slice/user@1000.service/app.slice/…`; a process
 * that the user manager did not start (a system service, a container
 * without systemd) has none.
 *
 * Errors (in the [error@Gio.IOErrorEnum] domain):
 * `G_IO_ERROR_INVALID_ARGUMENT` for a malformed @app_id;
 * `G_IO_ERROR_NOT_FOUND` with @under `NULL` when the caller is not in a
 * user manager's cgroup, saying so, or when @under does not exist;
 * `G_IO_ERROR_NOT_SUPPORTED` without cgroup v2.
 *
 * Returns: (transfer full) (array zero-terminated=1): the cgroup paths,
 *   an empty array when the application is not running, or `NULL` on
 *   error
 *
 * Since: 1.4
 */
GStrv
procwatch_cgroup_find_app_instances (const char  *app_id,
                                     const char  *under,
                                     GError     **error)
{
  g_return_val_if_fail (app_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return procwatch_apps_find (app_id, under, error);
}

/**
 * procwatch_cgroup_send_signal_async:
 * @self: a watched cgroup
 * @signum: the signal, such as `SIGTERM`
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async): the function to call when every process has
 *   been sent the signal
 * @user_data: data for @callback
 *
 * Sends @signum to every process in the cgroup and in the cgroups below
 * it, none escaping by forking meanwhile, and no process outside the tree
 * reached through a pid reused meanwhile.
 *
 * `SIGKILL` is sent with one write to the kernel's `cgroup.kill` (Linux
 * 5.14 and later). Any other signal, and `SIGKILL` on Linux 5.2 to 5.13,
 * is sent with the tree frozen (`cgroup.freeze`): the operation waits,
 * without blocking the main loop, for the kernel to say `frozen 1` of
 * every cgroup of the tree (it says so of a cgroup whose own processes are
 * frozen while a cgroup below may still be freezing), sends
 * the signal to each process through a pidfd (without pidfds, before
 * Linux 5.3, by pid, checked to be in the tree right before `kill()`),
 * and restores the previous
 * `cgroup.freeze` value. A tree that someone else froze stays frozen: a
 * process there with a handler for the signal runs it once the tree is
 * thawed, while one that the signal's default action ends (`SIGTERM`
 * without a handler) dies at once, frozen or not. Signals sent into one
 * tree at the same time share its freeze, and the last of them to finish
 * thaws it.
 * The freeze may take at most 5 seconds (a process in uninterruptible
 * sleep holds it up): then nothing is signalled, the tree is thawed, and
 * the operation fails with `G_IO_ERROR_TIMED_OUT`. The tree is never left
 * frozen by this call, whatever fails.
 *
 * It completes when the signal has been sent, not when the processes have
 * gone: [signal@Procwatch.ProcessMonitor::cgroup-emptied] and
 * [method@Procwatch.Cgroup.wait_empty_async] tell that. @callback is
 * called from the monitor's dispatch, never from inside this call, in the
 * thread-default main context of the caller.
 *
 * Errors (in the [error@Gio.IOErrorEnum] domain):
 * `G_IO_ERROR_INVALID_ARGUMENT` when the calling process is inside the
 * tree (freezing it would stop the caller); `G_IO_ERROR_NOT_FOUND` when
 * the cgroup is gone, or its path now names another cgroup (a unit
 * restarted under the same name: the cgroup is compared by the id it was
 * watched by); `G_IO_ERROR_PERMISSION_DENIED` where the cgroup is not
 * ours to write; `G_IO_ERROR_CLOSED` when the cgroup is not watched (any
 * more); `G_IO_ERROR_NOT_SUPPORTED` without `cgroup.freeze` (before Linux
 * 5.2, or the root cgroup); `G_IO_ERROR_TIMED_OUT` as above;
 * `G_IO_ERROR_CANCELLED` when @cancellable is cancelled or the monitor is
 * closed first.
 *
 * Since: 1.4
 */
void
procwatch_cgroup_send_signal_async (ProcwatchCgroup     *self,
                                    int                  signum,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  ProcwatchWatchOwner *owner;

  g_return_if_fail (PROCWATCH_IS_CGROUP (self));
  g_return_if_fail (signum > 0 && signum < NSIG);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, procwatch_cgroup_send_signal_async);
  g_task_set_name (task, "[gio-procwatch] cgroup signal");

  /* Not watched: there is no monitor whose dispatch could complete it. */
  if (self->watch == NULL || !procwatch_watch_owner_check (self->watch->owner, &error))
    {
      if (error != NULL)
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED,
                                 /* Translators: %s is a cgroup path. */
                                 _("Cannot signal cgroup %s: it is not watched any more"),
                                 self->path);
      return;
    }

  owner = self->watch->owner;
  owner->add_signal (owner, procwatch_cgroup_signal_new (task, signum, self->path,
                                                         self->watch->id));
}

/**
 * procwatch_cgroup_send_signal_finish:
 * @self: a cgroup
 * @result: the result passed to the callback
 * @error: return location for an error
 *
 * Finishes a signal started with
 * [method@Procwatch.Cgroup.send_signal_async].
 *
 * Returns: true if every process of the tree was sent the signal, false
 *   on error
 *
 * Since: 1.4
 */
gboolean
procwatch_cgroup_send_signal_finish (ProcwatchCgroup  *self,
                                     GAsyncResult     *result,
                                     GError          **error)
{
  g_return_val_if_fail (PROCWATCH_IS_CGROUP (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        procwatch_cgroup_send_signal_async, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
