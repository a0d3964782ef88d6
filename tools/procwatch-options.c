/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch's command line. glibc's getopt_long(3) reads it, not GOption:
 * GOption takes no attached short value ("-t0.3", "-c1"), which every
 * getopt tool and so util-linux waitpid(1) accepts, and its messages for a
 * bad option are not getopt's. getopt_long also gives waitpid's long option
 * abbreviations and its permutation (options after operands) for free.
 *
 * The optstring starts with '-' so that operands come back in order and the
 * "--" that ends the options can be found: after it, procwatch runs a
 * COMMAND, while waitpid takes more PIDs.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gi18n.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-options.h"

const char *tool_program_name = "procwatch";

enum
{
  OPT_REAPED = 256,
  OPT_JSON,
  OPT_DEBUG,
  OPT_SEND,
  OPT_CGROUP,
  OPT_CGROUP_OF,
  OPT_DBUS_NAME,
  OPT_APP,
  OPT_SIGNAL_CGROUPS,
  OPT_SESSION,
  OPT_SYSTEM,
};

static const struct option procwatch_longopts[] = {
  { "timeout",     required_argument, NULL, 't' },
  { "count",       required_argument, NULL, 'c' },
  { "exited",      no_argument,       NULL, 'e' },
  { "reaped",      no_argument,       NULL, OPT_REAPED },
  { "name",        required_argument, NULL, 'n' },
  { "full",        no_argument,       NULL, 'f' },
  { "exact",       no_argument,       NULL, 'x' },
  { "ignore-case", no_argument,       NULL, 'i' },
  { "json",        no_argument,       NULL, OPT_JSON },
  { "quiet",       no_argument,       NULL, 'q' },
  { "verbose",     no_argument,       NULL, 'v' },
  { "debug",       no_argument,       NULL, OPT_DEBUG },
  { "send",        required_argument, NULL, OPT_SEND },
  { "cgroup",      required_argument, NULL, OPT_CGROUP },
  { "cgroup-of",   required_argument, NULL, OPT_CGROUP_OF },
  { "dbus-name",   required_argument, NULL, OPT_DBUS_NAME },
  { "app",         required_argument, NULL, OPT_APP },
  { "signal-cgroups", no_argument,    NULL, OPT_SIGNAL_CGROUPS },
  { "session",     no_argument,       NULL, OPT_SESSION },
  { "system",      no_argument,       NULL, OPT_SYSTEM },
  { "signal",      required_argument, NULL, 's' },
  { "kill-after",  required_argument, NULL, 'k' },
  { "version",     no_argument,       NULL, 'V' },
  { "help",        no_argument,       NULL, 'h' },
  { NULL, 0, NULL, 0 }
};

/* Exactly waitpid(1)'s: under that name nothing else is accepted. */
static const struct option waitpid_longopts[] = {
  { "verbose", no_argument,       NULL, 'v' },
  { "timeout", required_argument, NULL, 't' },
  { "exited",  no_argument,       NULL, 'e' },
  { "count",   required_argument, NULL, 'c' },
  { "version", no_argument,       NULL, 'V' },
  { "help",    no_argument,       NULL, 'h' },
  { NULL, 0, NULL, 0 }
};

/* The rest of --help, each part its own message for translators: a
 * paragraph, or a few options. */
static const char *const procwatch_help[] = {
  N_("\nWait for any processes to exit, like waitpid(1) and pidwait(1).\n"),
  N_("\nOptions:\n"
     "  -t, --timeout=SECONDS  give up after SECONDS (fractional) and exit 3\n"
     "  -c, --count=N          return once N of the processes have exited\n"
     "  -e, --exited           do not fail on a process that is already gone\n"
     "      --reaped           also wait until each process has been reaped\n"),
  N_("  -n, --name=PATTERN     also watch processes whose name matches PATTERN\n"
     "  -f, --full             match PATTERN against the full command line\n"
     "  -x, --exact            match PATTERN against the whole name only\n"
     "  -i, --ignore-case      match PATTERN ignoring case\n"),
  N_("      --cgroup=PATH      also wait until the cgroup (v2) PATH is empty:\n"
     "                         relative to the cgroup2 root, as /proc/PID/cgroup\n"
     "                         writes it, or under the cgroup2 mount\n"
     "      --cgroup-of=PID    also wait until the cgroup PID is in is empty\n"
     "      --app=APP_ID       also wait until every running instance of the\n"
     "                         application APP_ID (e.g. org.gnome.Calculator) is gone\n"
     "      --dbus-name=NAME   also watch the process that owns the D-Bus NAME\n"
     "      --session          look NAME up on the session bus (the default)\n"
     "      --system           look NAME up on the system bus\n"),
  N_("      --send=SIGNAL      send SIGNAL to each process first, then wait\n"
     "  -s, --signal=SIGNAL    when the timeout expires, send SIGNAL to the\n"
     "                         processes still running and wait for them\n"
     "                         (TERM by default with a COMMAND)\n"
     "  -k, --kill-after=DURATION\n"
     "                         send KILL to the processes still running DURATION\n"
     "                         after --send or --signal sent a signal\n"
     "      --signal-cgroups   signals reach into --cgroup and --cgroup-of too\n"),
  N_("      --json             print events as JSON Lines\n"
     "  -q, --quiet            print no events, as waitpid(1)\n"
     "  -v, --verbose          what waitpid -v prints: \"PID N finished\" and\n"
     "                         \"Timeout expired\" on stdout, skips on stderr\n"
     "      --debug            report the backend and each process watched\n"
     "                         (as PID:INODE) on stderr\n"
     "  -h, --help             print this help and exit\n"
     "  -V, --version          print the version and exit\n"),
  /* Translators: the event lines themselves are not translated (scripts
   * read them): keep "exited", "reaped", "exit 0" and "killed by" as they
   * are. */
  N_("\nPrints one line per event:\n"
     "\n"
     "  PID EVENT NAME [STATUS]         e.g. \"4242 exited sleep exit 0\"\n"),
  N_("  - cgroup-emptied PATH           for a cgroup that is empty\n"),
  N_("\nEVENT is \"exited\" (the process terminated; it is a zombie) or, with --reaped,\n"
     "also \"reaped\" (its parent collected it; the pid is free). NAME is the process\n"
     "name when watching started, with spaces and unprintable bytes written as \\xHH.\n"
     "STATUS (\"exit 3\", \"killed by SIGKILL (core dumped)\") is printed where the\n"
     "kernel tells it: for a child at once, for others once reaped (Linux 6.15+).\n"),
  N_("\nPATTERN is a POSIX extended regular expression matched against the process\n"
     "name (comm), as pgrep(1) and pidwait(1) do; --name may be given many times.\n"),
  N_("\nPID:INODE, as printed by --debug or lsfd, pins a process by its pidfs inode\n"
     "(Linux 6.9+): if the pid now belongs to another process, it is refused.\n"),
  N_("\nSIGNAL is a name or number as kill(1) and timeout(1) take it: TERM, SIGTERM,\n"
     "15, RTMIN+1. Signals are sent through pidfds: never to a reused pid.\n"
     "SECONDS and DURATION may end in s, m, h or d, as timeout(1)'s DURATION.\n"),
  N_("\nWith -- COMMAND, runs COMMAND and watches it; COMMAND's exit status becomes\n"
     "procwatch's (128+N if killed by signal N). SIGTERM and SIGHUP sent to\n"
     "procwatch are passed on to it. On timeout COMMAND gets the --signal (TERM)\n"
     "and procwatch waits for it, as timeout(1) does.\n"),
  N_("\nEach --cgroup and --cgroup-of counts as one process for --count and the\n"
     "exit status; a cgroup that is empty already is reported at once. Signals\n"
     "(--send, --signal) go to processes only, not into a cgroup, unless\n"
     "--signal-cgroups is given.\n"),
  N_("\nEach --app counts as one process: it is done when all the instances it had\n"
     "when procwatch started (the app's units in the user's systemd user manager)\n"
     "are empty. Signals reach every process of an app, none escaping by forking:\n"
     "KILL through cgroup.kill, others with the app frozen meanwhile. procwatch\n"
     "never signals a cgroup it is in itself. An app that is not running is a\n"
     "failure (1), or skipped with --exited.\n"),
  N_("\nRun as \"waitpid\" (a link), it is util-linux waitpid(1): its options only,\n"
     "no event lines, its messages and exit statuses.\n"),
  N_("\nA --cgroup, --cgroup-of or --dbus-name that does not exist is a failure (1),\n"
     "or skipped with --exited; no cgroup v2 is status 2.\n"),
  N_("\nExit status:\n"
     "  0  every watched process exited (or N of them, with --count)\n"
     "  1  failure: a process cannot be watched or does not exist, or bad usage\n"
     "  2  the kernel lacks what is needed (pidfds; pidfs for PID:INODE)\n"
     "  3  the timeout expired (also when --signal then ended the processes)\n"
     "  With -- COMMAND: COMMAND's status; 124 if the timeout expired (137 if KILL\n"
     "  then ended it), 126 if it cannot be run, 127 if not found.\n"),
  N_("\nSee procwatch(1) for the JSON keys and more.\n"),
};

static void
print_usage (FILE *out)
{
  const char *name = tool_program_name;

  /* Translators: %s is the program's name, "procwatch" (or a link's). The
   * words in capitals are the names of arguments: translate them as
   * --help and procwatch(1) do. */
  fprintf (out, _("Usage: %s [OPTION…] PID[:INODE]…\n"
                  "       %s [OPTION…] -n PATTERN…\n"
                  "       %s [OPTION…] -- COMMAND [ARG…]\n"), name, name, name);
}

void
tool_warn (const char *format,
           ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  fprintf (stderr, "%s: %s\n", tool_program_name, message);
}

/* getopt has printed what is wrong; waitpid(1) then says this. */
static int
try_help (void)
{
  fprintf (stderr, _("Try '%s --help' for more information.\n"), tool_program_name);
  return TOOL_EXIT_FAILURE;
}

/* For mistakes only procwatch can make (waitpid has no message for them). */
int
tool_usage_error (const char *message)
{
  tool_warn ("%s", message);
  print_usage (stderr);
  return try_help ();
}

static void
print_help (gboolean waitpid_mode)
{
  const char *name = tool_program_name;

  if (waitpid_mode)
    {
      /* Word for word waitpid(1)'s, whose scripts may read it, and as
       * util-linux cuts it into messages. */
      fputs (_("\nUsage:\n"), stdout);
      printf (_(" %s [options] PID[:inode]...\n"), name);
      fputs (_("\nOptions:\n"), stdout);
      fputs (_(" -v, --verbose           be more verbose\n"), stdout);
      fputs (_(" -t, --timeout=<timeout> wait at most timeout seconds\n"), stdout);
      fputs (_(" -e, --exited            allow exited PIDs\n"), stdout);
      fputs (_(" -c, --count=<count>     number of process exits to wait for\n"), stdout);
      fputs ("\n", stdout);
      printf ("%-25s%s\n%-25s%s\n", " -h, --help", _("display this help"),
              " -V, --version", _("display version"));
      printf (_("\nFor more details see %s.\n"), "waitpid(1)");
      return;
    }

  print_usage (stdout);
  for (gsize i = 0; i < G_N_ELEMENTS (procwatch_help); i++)
    fputs (_(procwatch_help[i]), stdout);
}

static void
print_version (gboolean waitpid_mode)
{
  if (waitpid_mode)
    /* Translators: util-linux's "%s from %s" ("waitpid from util-linux
     * 2.41"); the first %s is the program's name, the second a version. */
    printf (_("%s from gio-procwatch %s\n"), tool_program_name, PROCWATCH_VERSION_S);
  else
    printf ("procwatch (gio-procwatch) %s\n", PROCWATCH_VERSION_S);
}

/* waitpid(1)'s number errors: "invalid count: 'x'", and the errno's text
 * after it when the number is out of range. */
static int
number_error (const char *what,
              const char *text,
              int         saved_errno)
{
  if (saved_errno == ERANGE)
    tool_warn ("%s: '%s': %s", what, text, g_strerror (ERANGE));
  else
    tool_warn ("%s: '%s'", what, text);
  return TOOL_EXIT_FAILURE;
}

/* The seconds in one of timeout(1)'s DURATION suffixes (seconds,
 * minutes, hours, days); 0 for anything else. */
static long double
suffix_seconds (const char *suffix)
{
  static const char suffixes[] = "smhd";
  static const long double factors[] = { 1, 60, 60 * 60, 24 * 60 * 60 };
  const char *found = strchr (suffixes, suffix[0]);

  if (suffix[0] == '\0' || suffix[1] != '\0' || found == NULL)
    return 0;
  return factors[found - suffixes];
}

/* SECONDS as waitpid(1) reads them or, with @suffixes, a DURATION as
 * timeout(1) reads it ("1.5", "2m"). @what names it in an error. */
static int
parse_duration (const char *text,
                const char *what,
                gboolean    suffixes,
                guint      *milliseconds)
{
  long double seconds = 0;
  long double factor = 1;
  char *end = NULL;

  errno = 0;
  if (*text != '\0')
    seconds = strtold (text, &end);
  if (suffixes && errno == 0 && end != NULL && end != text && *end != '\0' &&
      (factor = suffix_seconds (end)) != 0)
    end++;
  if (*text == '\0' || (errno == 0 && (end == text || *end != '\0')))
    errno = EINVAL;
  /* waitpid's timer would refuse these later, less clearly. */
  if (errno == 0 && (!isfinite ((double) seconds) || seconds < 0))
    errno = EINVAL;
  if (errno != 0)
    return number_error (what, text, errno);

  /* Rounded up, so that a small timeout is never none; 0 means none. */
  *milliseconds = (guint) MIN (ceill (seconds * factor * 1000.0L), (long double) G_MAXUINT);
  return -1;
}

/* The signals glibc knows by other names too, as kill -l lists them. */
static const struct
{
  const char *name;
  int signum;
} signal_aliases[] = {
  { "IOT", SIGABRT },
  { "CLD", SIGCHLD },
  { "POLL", SIGIO },
};

/* "RTMIN", "RTMIN+N", "RTMAX", "RTMAX-N": the real-time signals, which
 * glibc numbers from SIGRTMIN on. -1 if @name is none of them. */
static int
realtime_signal (const char *name)
{
  gboolean from_min = g_ascii_strncasecmp (name, "RTMIN", 5) == 0;
  const char *offset = name + 5;
  char *end = NULL;
  long n = 0;

  if (!from_min && g_ascii_strncasecmp (name, "RTMAX", 5) != 0)
    return -1;

  if (*offset != '\0')
    {
      if (*offset != (from_min ? '+' : '-') || !g_ascii_isdigit (offset[1]))
        return -1;
      errno = 0;
      n = strtol (offset + 1, &end, 10);
      if (errno != 0 || *end != '\0' || n > SIGRTMAX - SIGRTMIN)
        return -1;
    }

  return from_min ? SIGRTMIN + (int) n : SIGRTMAX - (int) n;
}

/* A SIGNAL as kill(1) and timeout(1) take it: a name in any case, with or
 * without "SIG" (TERM, sigterm, SIGRTMIN+2), or a number (15). A number
 * past 128 is read as a shell's status for the signal (143 is TERM), as
 * timeout(1) reads it. -1 if it is none. */
static int
signal_number (const char *text)
{
  const char *name = text;
  int signum = -1;
  guint i;

  if (g_ascii_strncasecmp (name, "SIG", 3) == 0 && name[3] != '\0')
    name += 3;

  if (g_ascii_isdigit (*name))
    {
      char *end = NULL;
      long value;

      errno = 0;
      value = strtol (name, &end, 10);
      if (errno != 0 || *end != '\0' || value > G_MAXINT)
        return -1;
      signum = WIFSIGNALED ((int) value) ? WTERMSIG ((int) value) : (int) value;
    }
  else
    {
      for (i = 1; i < NSIG && signum < 0; i++)
        if (sigabbrev_np (i) != NULL && g_ascii_strcasecmp (sigabbrev_np (i), name) == 0)
          signum = i;
      for (i = 0; i < G_N_ELEMENTS (signal_aliases) && signum < 0; i++)
        if (g_ascii_strcasecmp (signal_aliases[i].name, name) == 0)
          signum = signal_aliases[i].signum;
      if (signum < 0)
        signum = realtime_signal (name);
    }

  return signum >= 0 && signum <= SIGRTMAX ? signum : -1;
}

static int
parse_signal (const char *text,
              int        *signum)
{
  *signum = signal_number (text);
  if (*signum >= 0)
    return -1;

  /* Translators: timeout(1)'s words; %s is what was given. */
  tool_warn (_("'%s': invalid signal"), text);
  return try_help ();
}

static int
parse_count (const char *text,
             guint64    *count)
{
  intmax_t value = 0;
  char *end = NULL;

  errno = 0;
  if (*text != '\0')
    value = strtoimax (text, &end, 10);
  if (*text == '\0' || (errno == 0 && (end == text || *end != '\0')))
    errno = EINVAL;
  if (errno == 0 && value < 1)
    errno = ERANGE;
  if (errno != 0)
    return number_error (_("invalid count"), text, errno);

  *count = (guint64) value;
  return -1;
}

static const char *
long_name (int c)
{
  return c == 'c' ? "count" : "exited";
}

/* waitpid(1) refuses -c with -e, naming them in the order given. */
static int
check_exclusive (int  c,
                 int *first)
{
  if (c != 'c' && c != 'e')
    return -1;
  if (*first == 0)
    *first = c;
  else if (*first != c)
    {
      /* Translators: %s are the names of two options, such as "count". */
      tool_warn (_("options --%s and --%s cannot be combined"), long_name (*first), long_name (c));
      return TOOL_EXIT_FAILURE;
    }
  return -1;
}

static void
add_operands (GPtrArray *operands,
              char     **args)
{
  for (; *args != NULL; args++)
    g_ptr_array_add (operands, *args);
}

/* Applies one option. Returns -1 to go on, or the exit status. */
static int
apply_option (int          c,
              ToolOptions *options)
{
  switch (c)
    {
    case 't':
      return parse_duration (optarg, _("invalid timeout"), !options->waitpid_mode,
                             &options->timeout_ms);
    case OPT_SEND:
      return parse_signal (optarg, &options->send_signal);
    case 's':
      return parse_signal (optarg, &options->timeout_signal);
    case 'k':
      return parse_duration (optarg, _("invalid duration"), TRUE, &options->kill_after_ms);
    case 'c':
      return parse_count (optarg, &options->count);
    case 'e':
      options->allow_exited = TRUE;
      break;
    case OPT_REAPED:
      options->wait_reaped = TRUE;
      break;
    case 'n':
      g_ptr_array_add (options->patterns, optarg);
      break;
    case 'f':
      options->match_flags |= TOOL_MATCH_FULL;
      break;
    case 'x':
      options->match_flags |= TOOL_MATCH_EXACT;
      break;
    case 'i':
      options->match_flags |= TOOL_MATCH_IGNORE_CASE;
      break;
    case OPT_JSON:
      options->json = TRUE;
      break;
    case 'q':
      options->quiet = TRUE;
      break;
    case 'v':
      options->verbose = TRUE;
      break;
    case OPT_DEBUG:
      options->debug = TRUE;
      break;
    case OPT_CGROUP:
      g_ptr_array_add (options->cgroups, optarg);
      break;
    case OPT_CGROUP_OF:
      g_ptr_array_add (options->cgroup_of, optarg);
      break;
    case OPT_DBUS_NAME:
      g_ptr_array_add (options->dbus_names, optarg);
      break;
    case OPT_APP:
      g_ptr_array_add (options->apps, optarg);
      break;
    case OPT_SIGNAL_CGROUPS:
      options->signal_cgroups = TRUE;
      break;
    case OPT_SESSION:
      options->system_bus = FALSE;
      break;
    case OPT_SYSTEM:
      options->system_bus = TRUE;
      break;
    case 'h':
      print_help (options->waitpid_mode);
      return TOOL_EXIT_OK;
    case 'V':
      print_version (options->waitpid_mode);
      return TOOL_EXIT_OK;
    default:
      /* getopt has said what is wrong. */
      return try_help ();
    }

  return -1;
}

/* Reads options and operands as getopt_long does, values parsed as they
 * come (as waitpid does: the first bad one is the one reported). */
static int
read_arguments (int          argc,
                char        *argv[],
                ToolOptions *options)
{
  const struct option *longopts = options->waitpid_mode ? waitpid_longopts : procwatch_longopts;
  const char *optstring = options->waitpid_mode ? "-vVht:c:e" : "-t:c:en:fxiqvVhs:k:";
  /* What getopt would do without the leading '-': stop at the first operand. */
  gboolean posixly_correct = g_getenv ("POSIXLY_CORRECT") != NULL;
  int exclusive = 0;

  for (;;)
    {
      int before = optind;
      int exit_code;
      int c = getopt_long (argc, argv, optstring, longopts, NULL);

      if (c == -1)
        {
          /* Only "--" ends the scan before the last argument. */
          if (before < argc && strcmp (argv[before], "--") == 0)
            {
              if (options->waitpid_mode)
                add_operands (options->pid_args, argv + before + 1);
              else
                options->command_argv = argv + before + 1;
            }
          return -1;
        }

      if (c == 1)
        {
          g_ptr_array_add (options->pid_args, optarg);
          if (posixly_correct)
            {
              add_operands (options->pid_args, argv + optind);
              return -1;
            }
          continue;
        }

      if (options->waitpid_mode && (exit_code = check_exclusive (c, &exclusive)) >= 0)
        return exit_code;

      if ((exit_code = apply_option (c, options)) >= 0)
        return exit_code;
    }
}

/* The checks only procwatch's own options need. */
static int
check_procwatch_options (ToolOptions *options)
{
  gboolean have_processes = options->pid_args->len > 0 || options->patterns->len > 0 ||
                            options->cgroups->len > 0 || options->cgroup_of->len > 0 ||
                            options->dbus_names->len > 0 || options->apps->len > 0;

  if (options->quiet && options->json)
    return tool_usage_error (_("--quiet and --json cannot be combined"));

  if (options->command_argv != NULL)
    {
      if (options->command_argv[0] == NULL)
        return tool_usage_error (_("no COMMAND after '--'"));
      if (have_processes)
        return tool_usage_error (_("PIDs and --name cannot be combined with a COMMAND"));
      if (options->send_signal >= 0)
        return tool_usage_error (_("--send cannot be combined with a COMMAND"));
    }
  else if (!have_processes)
    return tool_usage_error (_("no process given"));

  if (options->timeout_signal >= 0 && options->timeout_ms == 0)
    return tool_usage_error (_("--signal needs a --timeout"));
  if (options->kill_after_ms > 0 && options->command_argv == NULL &&
      options->send_signal < 0 && options->timeout_signal < 0)
    return tool_usage_error (_("--kill-after needs --send or --signal"));

  /* timeout(1)'s default, for a COMMAND only: a PID is not ours to stop
   * unless asked. */
  if (options->command_argv != NULL && options->timeout_signal < 0)
    options->timeout_signal = SIGTERM;

  return -1;
}

/* Parses the command line into @options. Returns -1 to go on, or the exit
 * status (0 after --help or --version). */
int
tool_parse_options (int          argc,
                    char        *argv[],
                    ToolOptions *options)
{
  const char *slash = argc > 0 ? strrchr (argv[0], '/') : NULL;
  int exit_code;

  if (argc > 0)
    tool_program_name = slash != NULL ? slash + 1 : argv[0];
  options->waitpid_mode = strcmp (tool_program_name, "waitpid") == 0;
  options->pid_args = g_ptr_array_new ();
  options->patterns = g_ptr_array_new ();
  options->cgroups = g_ptr_array_new ();
  options->cgroup_of = g_ptr_array_new ();
  options->apps = g_ptr_array_new ();
  options->dbus_names = g_ptr_array_new ();
  options->send_signal = -1;
  options->timeout_signal = -1;

  exit_code = read_arguments (argc, argv, options);
  if (exit_code >= 0)
    return exit_code;

  if (options->waitpid_mode)
    {
      /* waitpid makes no event lines: it is procwatch -q. */
      options->quiet = TRUE;
      if (options->pid_args->len == 0)
        {
          tool_warn (_("no PIDs specified"));
          return TOOL_EXIT_FAILURE;
        }
    }
  else if ((exit_code = check_procwatch_options (options)) >= 0)
    return exit_code;

  g_ptr_array_add (options->patterns, NULL);
  return -1;
}

void
tool_options_clear (ToolOptions *options)
{
  g_clear_pointer (&options->pid_args, g_ptr_array_unref);
  g_clear_pointer (&options->patterns, g_ptr_array_unref);
  g_clear_pointer (&options->cgroups, g_ptr_array_unref);
  g_clear_pointer (&options->cgroup_of, g_ptr_array_unref);
  g_clear_pointer (&options->apps, g_ptr_array_unref);
  g_clear_pointer (&options->dbus_names, g_ptr_array_unref);
}
