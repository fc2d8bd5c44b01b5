package org.mucscale.engine.metrics.jvm;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bin/mucscale-jvm-check}: reads JVM options from an {@code openfire.vmoptions}, a java {@code @argfile}, an
 * {@code /etc/sysconfig/openfire} or {@code /etc/default/openfire} file, one {@code OPENFIRE_OPTS=}/
 * {@code JDK_JAVA_OPTIONS=} line, or a running JVM by PID ({@code jcmd}), and prints {@link JvmFlagCheck}'s findings.
 * Exit 0 clean (notes only), 1 warnings, 2 something stops the JVM from starting, 3 bad usage or unreadable input.
 *
 * <p>Without the plugin's other jars: {@code java -cp mucscale-metrics-*.jar
 * org.mucscale.engine.metrics.jvm.JvmFlagCheckCli ...} (Openfire: {@code plugins/mucscale/lib/}), or
 * {@code java -cp mucscale-standalone.jar org.mucscale.engine.metrics.jvm.JvmFlagCheckCli ...}.
 */
public final class JvmFlagCheckCli {

    public static final int EXIT_USAGE = 3;

    static final String USAGE = """
            usage: mucscale-jvm-check [--jdk N] [--users N] [--host openfire|standalone] [--portable] SOURCE
              SOURCE, one of:
                FILE             openfire.vmoptions (one option a line), a java @argfile such as a preset's
                                 .jvmopts, or a shell file like /etc/sysconfig/openfire or /etc/default/openfire
                                 (its OPENFIRE_OPTS=, JDK_JAVA_OPTIONS=, JAVA_OPTS=, DAEMON_OPTS= lines)
                --line 'TEXT'    one OPENFIRE_OPTS="..." or JDK_JAVA_OPTIONS="..." line, or the options alone
                --pid PID        a running JVM (jcmd PID VM.version, VM.command_line and VM.flags)
                -- OPTION...     the options themselves
              --jdk N          the JDK the options are for: 17, 21, 25... (default: the JVM's own with --pid,
                               otherwise the java running this check)
              --users N        expected users: warn when the maximum heap is below the measured memory per user
              --host H         openfire (default) or standalone: which per-user figure applies
              --portable       skip the checks that look at this machine (GC log folders, huge pages)
            exit: 0 clean, 1 warnings, 2 an option stops the JVM from starting, 3 bad usage or unreadable input
            """;

    private static final Pattern ENV_LINE = Pattern.compile(
            "^\\s*(?:export\\s+)?(OPENFIRE_OPTS|JDK_JAVA_OPTIONS|JAVA_OPTS|_JAVA_OPTIONS|JAVA_TOOL_OPTIONS"
                    + "|INSTALL4J_ADD_VM_PARAMS|DAEMON_OPTS)=(.*)$");

    private JvmFlagCheckCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** What was read: the options, where from, the target JDK if the source says, and findings about the source. */
    record Input(String source, List<String> options, int jdk, long maxHeap, List<JvmFlagCheck.Finding> findings) {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        int jdk = 0;
        long users = 0;
        JvmFlagCheck.Host host = JvmFlagCheck.Host.OPENFIRE;
        boolean portable = false;
        String file = null;
        String line = null;
        long pid = -1;
        List<String> direct = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--jdk" -> jdk = positiveInt(a, value(args, ++i, a), 8, 1000);
                    case "--users" -> users = positiveInt(a, value(args, ++i, a), 1, Integer.MAX_VALUE);
                    case "--host" -> {
                        String h = value(args, ++i, a);
                        try {
                            host = JvmFlagCheck.Host.valueOf(h.toUpperCase(Locale.ROOT));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("--host must be openfire or standalone, was '" + h + "'");
                        }
                    }
                    case "--portable" -> portable = true;
                    case "--line" -> line = value(args, ++i, a);
                    case "--pid" -> pid = positiveInt(a, value(args, ++i, a), 1, Integer.MAX_VALUE);
                    case "--help", "-h" -> {
                        out.print(USAGE);
                        return 0;
                    }
                    case "--" -> {
                        direct = List.of(args).subList(i + 1, args.length);
                        i = args.length;
                    }
                    default -> {
                        if (a.startsWith("-") || file != null) {
                            throw new IllegalArgumentException("unknown option '" + a + "'");
                        }
                        file = a;
                    }
                }
            }
            int sources = (file != null ? 1 : 0) + (line != null ? 1 : 0) + (pid > 0 ? 1 : 0) + (direct != null ? 1 : 0);
            if (sources != 1) {
                throw new IllegalArgumentException(sources == 0 ? "name one SOURCE" : "name only one SOURCE");
            }
        } catch (IllegalArgumentException e) {
            err.println("mucscale-jvm-check: " + e.getMessage());
            err.print(USAGE);
            return EXIT_USAGE;
        }
        Input input;
        try {
            if (pid > 0) {
                input = fromPid(pid);
            } else if (line != null) {
                input = fromText("--line", line, Path.of("."), Kind.SHELL_OR_PLAIN);
            } else if (direct != null) {
                input = new Input("command line", direct, 0, 0, List.of());
            } else {
                Path p = Path.of(file);
                input = fromText(file, Files.readString(p, StandardCharsets.UTF_8), baseDir(p), kindOf(p));
            }
        } catch (java.nio.file.NoSuchFileException e) {
            err.println("mucscale-jvm-check: cannot read " + e.getFile() + ": no such file");
            return EXIT_USAGE;
        } catch (IOException | RuntimeException e) {
            err.println("mucscale-jvm-check: cannot read the options: " + e.getMessage());
            return EXIT_USAGE;
        }
        int target = jdk > 0 ? jdk : input.jdk() > 0 ? input.jdk() : java.lang.Runtime.version().feature();
        JvmFlagCheck.Report report;
        try {
            report = JvmFlagCheck.check(input.options(), target, users, host, input.maxHeap());
        } catch (IllegalArgumentException e) {
            err.println("mucscale-jvm-check: " + e.getMessage());
            return EXIT_USAGE;
        }
        List<JvmFlagCheck.Finding> all = new ArrayList<>(input.findings());
        all.addAll(report.findings());
        if (!portable) {
            all.addAll(hostFindings(input.options()));
        }
        report = new JvmFlagCheck.Report(report.jdk(), report.collector(), report.maxHeapBytes(), List.copyOf(all));
        print(out, input, report, jdk > 0 ? "--jdk" : input.jdk() > 0 ? "the running JVM" : "the java running this check");
        return report.exitCode();
    }

    static void print(PrintStream out, Input input, JvmFlagCheck.Report report, String jdkFrom) {
        out.println("mucscale-jvm-check: " + input.source() + ": " + input.options().size() + " options, JDK "
                + report.jdk() + " (" + jdkFrom + "), collector " + report.collector() + ", max heap "
                + (report.maxHeapBytes().isPresent() ? JvmFlagCheck.size(report.maxHeapBytes().getAsLong())
                : "JVM default (1/4 of RAM)"));
        for (JvmFlagCheck.Finding f : report.findings()) {
            out.println(String.format(Locale.ROOT, "%-5s %s", f.severity(), f.option()));
            out.println("      " + f.problem());
            out.println("      instead: " + f.instead());
        }
        long stop = report.count(JvmFlagCheck.Severity.STOP);
        long warn = report.count(JvmFlagCheck.Severity.WARN);
        long note = report.count(JvmFlagCheck.Severity.NOTE);
        out.println("result: " + (stop + warn == 0 ? "clean" : stop > 0 ? "the JVM will not start" : "warnings")
                + " (" + stop + " stop, " + warn + " warn, " + note + " note; exit " + report.exitCode() + ")");
    }

    enum Kind { ARGFILE, VMOPTIONS, SHELL_OR_PLAIN }

    static Kind kindOf(Path p) {
        return p.getFileName().toString().endsWith(".vmoptions") ? Kind.VMOPTIONS : Kind.ARGFILE;
    }

    private static Path baseDir(Path p) {
        Path parent = p.toAbsolutePath().getParent();
        return parent == null ? Path.of(".") : parent;
    }

    /**
     * Options from a file's text. A file with {@code NAME=} lines of the known variables is read as a shell file
     * whatever its name; an install4j {@code .vmoptions} file is one option a line; anything else is a java argfile.
     */
    static Input fromText(String source, String text, Path base, Kind kind) throws IOException {
        List<JvmFlagCheck.Finding> findings = new ArrayList<>();
        List<String> options = new ArrayList<>();
        boolean shell = false;
        for (String l : text.split("\\R")) {
            Matcher m = ENV_LINE.matcher(l);
            if (!m.matches()) {
                continue;
            }
            shell = true;
            List<String> words = expand(shellWords(unquote(m.group(2).trim())), base, findings);
            if (m.group(1).equals("DAEMON_OPTS")) {
                List<String> jvm = words.stream().filter(w -> w.startsWith("-X") || w.startsWith("-D")
                        || w.startsWith("@")).toList();
                if (!jvm.isEmpty()) {
                    findings.add(new JvmFlagCheck.Finding(JvmFlagCheck.Severity.WARN, "DAEMON_OPTS=" + String.join(" ",
                            jvm), "Debian's /etc/init.d/openfire puts DAEMON_OPTS after -jar startup.jar: these reach"
                            + " Openfire as program arguments and the JVM never sees them",
                            "export JDK_JAVA_OPTIONS=\"...\" in /etc/default/openfire (jvm-tuning/forms/*.default)"));
                }
            } else {
                options.addAll(words);
            }
        }
        if (!shell) {
            if (kind == Kind.VMOPTIONS) {
                for (String l : text.split("\\R")) {
                    String t = l.strip();
                    // install4j directives are not JVM options.
                    if (t.isEmpty() || t.startsWith("#") || t.startsWith("-include-options")
                            || t.startsWith("-classpath")) {
                        continue;
                    }
                    options.add(t);
                }
            } else if (kind == Kind.SHELL_OR_PLAIN) {
                options.addAll(expand(shellWords(unquote(text.trim())), base, findings));
            } else {
                // The launcher does not expand an @file named inside an argfile.
                options.addAll(argfileWords(text));
            }
        }
        return new Input(source, List.copyOf(options), 0, 0, findings);
    }

    /** Replaces {@code @file} words by the argfile's options, as the java launcher does. */
    private static List<String> expand(List<String> words, Path base, List<JvmFlagCheck.Finding> findings)
            throws IOException {
        List<String> out = new ArrayList<>();
        for (String w : words) {
            if (w.startsWith("@") && !w.startsWith("@@") && w.length() > 1) {
                Path f = base.resolve(w.substring(1));
                if (Files.isReadable(f)) {
                    out.addAll(argfileWords(Files.readString(f, StandardCharsets.UTF_8)));
                } else {
                    findings.add(new JvmFlagCheck.Finding(JvmFlagCheck.Severity.STOP, w, "the argfile " + f
                            + " cannot be read here; the java launcher stops when it cannot open it",
                            "install the file, or check on the machine that runs the server"));
                }
            } else {
                out.add(w.startsWith("@@") ? w.substring(1) : w);
            }
        }
        return out;
    }

    /** A java {@code @argfile}: words split by white space, quotes group, {@code #} at a word's start ends the line. */
    static List<String> argfileWords(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    w.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else if (c == '#' && !inWord) {
                while (i < text.length() && text.charAt(i) != '\n' && text.charAt(i) != '\r') {
                    i++;
                }
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(w.toString());
        }
        return words;
    }

    /** Words of an (already unquoted) shell value: white space splits, quotes group. */
    static List<String> shellWords(String value) {
        return argfileWords(value.replace("#", "\u0000")).stream().map(s -> s.replace('\u0000', '#')).toList();
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && (v.charAt(0) == '"' || v.charAt(0) == '\'') && v.charAt(v.length() - 1) == v.charAt(0)) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }

    /**
     * A running JVM through {@code jcmd} (the attach mechanism, as the same user). The jcmd of the target's own JDK
     * is used when {@code /proc/PID/exe} shows it, so versions match.
     */
    static Input fromPid(long pid) throws IOException {
        if (ProcessHandle.of(pid).isEmpty()) {
            throw new IOException("no process " + pid);
        }
        String jcmd = jcmdFor(pid);
        String version = jcmd(jcmd, pid, "VM.version");
        String commandLine = jcmd(jcmd, pid, "VM.command_line");
        String flags = jcmd(jcmd, pid, "VM.flags");
        Matcher v = Pattern.compile("(?m)^JDK (\\d+)").matcher(version);
        int jdk = v.find() ? Integer.parseInt(v.group(1)) : 0;
        List<String> options = new ArrayList<>();
        Matcher a = Pattern.compile("(?m)^jvm_args: (.*)$").matcher(commandLine);
        if (a.find()) {
            options.addAll(List.of(a.group(1).trim().split("\\s+")));
        }
        long maxHeap = 0;
        Matcher h = Pattern.compile("-XX:MaxHeapSize=(\\d+)").matcher(flags);
        if (h.find()) {
            maxHeap = Long.parseLong(h.group(1));
        }
        // The collector the JVM runs (ergonomics included), when the command line did not name it.
        boolean named = options.stream().anyMatch(o -> JvmFlagRules.COLLECTOR_FLAGS.stream()
                .anyMatch(c -> o.equals("-XX:+" + c)));
        if (!named) {
            for (String c : JvmFlagRules.COLLECTOR_FLAGS) {
                if (flags.contains("-XX:+" + c)) {
                    options.add("-XX:+" + c);
                }
            }
        }
        return new Input("pid " + pid, List.copyOf(options), jdk, maxHeap, List.of());
    }

    private static String jcmdFor(long pid) {
        try {
            Path exe = Path.of("/proc", Long.toString(pid), "exe").toRealPath();
            Path candidate = exe.getParent().resolve("jcmd");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not ours to read: fall back to this JDK's jcmd
        }
        Path own = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        return Files.isExecutable(own) ? own.toString() : "jcmd";
    }

    private static String jcmd(String jcmd, long pid, String command) throws IOException {
        Process p = new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(jcmd + " " + pid + " " + command + " did not answer in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted waiting for jcmd", e);
        }
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(jcmd + " " + pid + " " + command + " failed (exit " + p.exitValue()
                    + "; is it a JVM run by this user?): " + text.strip());
        }
        return text;
    }

    /** Checks against this machine: a GC log folder the JVM cannot open stops it; huge pages must be configured. */
    static List<JvmFlagCheck.Finding> hostFindings(List<String> options) {
        List<JvmFlagCheck.Finding> out = new ArrayList<>();
        Pattern file = Pattern.compile("file=([^:]+)");
        for (String o : options) {
            if (o.startsWith("-Xlog:")) {
                Matcher m = file.matcher(o);
                if (m.find()) {
                    Path dir = Path.of(m.group(1).replace("\"", "")).toAbsolutePath().getParent();
                    if (dir != null && !Files.isDirectory(dir)) {
                        out.add(new JvmFlagCheck.Finding(JvmFlagCheck.Severity.STOP, o, "the folder " + dir + " does"
                                + " not exist on this machine: the JVM does not start (\"Invalid -Xlog option\")",
                                "create it, writable by the user the server runs as"));
                    }
                }
            } else if (o.equals("-XX:+UseTransparentHugePages")) {
                String mode = read("/sys/kernel/mm/transparent_hugepage/enabled");
                if (mode != null && mode.contains("[never]")) {
                    out.add(new JvmFlagCheck.Finding(JvmFlagCheck.Severity.WARN, o, "transparent huge pages are off"
                            + " on this machine ([never]): the flag does nothing",
                            "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled (see jvm-tuning/addons/"
                                    + "large-pages.jvmopts)"));
                }
                String shmem = read("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
                if (options.contains("-XX:+UseZGC") && shmem != null
                        && (shmem.contains("[never]") || shmem.contains("[deny]"))) {
                    // ZGC maps its heap as shared memory: JDK 25 warns and leaves the heap on small pages.
                    out.add(new JvmFlagCheck.Finding(JvmFlagCheck.Severity.WARN, o, "ZGC's heap is shared memory, and"
                            + " shared-memory huge pages are off on this machine (shmem_enabled "
                            + (shmem.contains("[never]") ? "[never]" : "[deny]") + "): the heap stays on 4 KiB pages",
                            "echo advise > /sys/kernel/mm/transparent_hugepage/shmem_enabled (see jvm-tuning/addons/"
                                    + "large-pages.jvmopts)"));
                }
            } else if (o.equals("-XX:+UseLargePages") && !options.contains("-XX:+UseTransparentHugePages")) {
                String meminfo = read("/proc/meminfo");
                Matcher m = meminfo == null ? null : Pattern.compile("HugePages_Total:\\s+(\\d+)").matcher(meminfo);
                if (m != null && m.find() && m.group(1).equals("0")) {
                    out.add(new JvmFlagCheck.Finding(JvmFlagCheck.Severity.WARN, o, "no huge pages are reserved on"
                            + " this machine (HugePages_Total 0): the JVM warns and uses normal pages",
                            "reserve them (vm.nr_hugepages) or use -XX:+UseTransparentHugePages (see"
                                    + " jvm-tuning/addons/large-pages.jvmopts)"));
                }
            }
        }
        return out;
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positiveInt(String option, String v, int min, int max) {
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a whole number between " + min + " and " + max
                    + ", was '" + v + "'");
        }
    }
}
