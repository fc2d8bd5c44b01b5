package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Command line: {@code run}, {@code compare}, {@code list}. Exit codes: 0 done, 2 bad usage or scenario,
 * 3 the run lost deliveries or had errors while {@code --require-zero-loss} was given, 4 the watchdog stopped a run
 * that overran its deadline.
 */
public final class Main {
    static final String USAGE = """
            usage:
              mucscale-loadgen run <scenario|file.json> [options]   run a built-in scenario or a JSON scenario file
                  --server host:port        XMPP client port (default from the scenario: 127.0.0.1:5222)
                  --domain d                XMPP domain (MUC service defaults to conference.<d>)
                  --muc m                   MUC service domain
                  --set key=value           override any scenario key, e.g. --set users=200 --set levels.ratesPerSec=10,20
                  --server-pid pid[,pid]    sample the server's CPU and RSS from /proc, summed over all given
                                            processes (repeat the option or give a comma list)
                  --label name              name of this run in reports (default: the scenario name)
                  --out dir                 where results go (default: loadgen-results)
                  --require-zero-loss       exit 3 unless every expected delivery arrived and nothing failed
                  --quiet                   no progress lines
              mucscale-loadgen compare run1.json run2.json ... [--out report.html]   one HTML report over several runs
              mucscale-loadgen list                                  built-in scenarios
              mucscale-loadgen show <scenario> [--set key=value]     the effective scenario as JSON
            """;

    private Main() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args, System.out, System.err);
        } catch (ScenarioException | IllegalArgumentException e) {
            System.err.println("mucscale-loadgen: " + e.getMessage());
            code = 2;
        }
        System.exit(code);
    }

    /** Runs one command; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
            out.print(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        switch (args[0]) {
            case "list" -> {
                for (String name : ScenarioLoader.BUILT_IN) {
                    Scenario s = ScenarioLoader.load(name, List.of());
                    out.printf("%-10s %s%n", name, s.description());
                }
                return 0;
            }
            case "show" -> {
                Parsed p = parse(args);
                out.println(ScenarioLoader.toTree(ScenarioLoader.load(p.scenario, p.overrides)).toPrettyString());
                return 0;
            }
            case "compare" -> {
                return compare(args, out);
            }
            case "run" -> {
                return runScenario(parse(args), out, err);
            }
            default -> throw new IllegalArgumentException("unknown command '" + args[0] + "'\n" + USAGE);
        }
    }

    private static int runScenario(Parsed p, PrintStream out, PrintStream err) {
        Scenario scenario = ScenarioLoader.load(p.scenario, p.overrides);
        Path outDir = Path.of(p.out == null ? "loadgen-results" : p.out);
        String label = p.label == null ? scenario.name() : p.label;
        String stem = safe(label) + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        PrintStream progress = p.quiet ? null : out;
        if (progress != null) {
            progress.printf("mucscale-loadgen: %s, %d users, target %s:%d (%s), deadline %d s%n", scenario.name(),
                    scenario.users(), scenario.server().host(), scenario.server().port(), scenario.server().domain(),
                    scenario.run().deadlineS());
        }
        Thread watchdog = watchdog(scenario.run().deadlineS() + 60L, err);
        ObjectNode result = new LoadRun(scenario, p.serverPids, label, progress).run();
        watchdog.interrupt();
        Path json = outDir.resolve(stem + ".json");
        Path csv = outDir.resolve(stem + ".csv");
        Path html = outDir.resolve(stem + ".html");
        Results.writeJson(result, json);
        Results.writeCsv(result, csv);
        HtmlReport.write(List.of(result), html);
        out.println(Results.summaryText(result));
        out.println("results: " + json.toAbsolutePath());
        out.println("csv:     " + csv.toAbsolutePath());
        out.println("report:  " + html.toAbsolutePath());
        if (p.requireZeroLoss) {
            var s = result.get("summary");
            boolean clean = s.get("lost").asLong() == 0 && s.get("loginFailed").asLong() == 0
                    && s.get("joinFailed").asLong() == 0 && s.get("messagesSent").asLong() > 0
                    && s.get("duplicates").asLong() == 0 && "completed".equals(result.get("stoppedBy").asText());
            if (!clean) {
                err.println("mucscale-loadgen: --require-zero-loss: the run lost deliveries, failed logins/joins, or hit its deadline");
                return 3;
            }
        }
        return 0;
    }

    /** Ends the JVM if a run overruns its own deadline by a wide margin (e.g. a server that never closes sockets). */
    private static Thread watchdog(long seconds, PrintStream err) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(seconds * 1000);
                err.println("mucscale-loadgen: run overran its deadline by 60 s; stopping");
                System.exit(4);
            } catch (InterruptedException e) {
                // the run finished
            }
        }, "loadgen-watchdog");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static int compare(String[] args, PrintStream out) {
        List<ObjectNode> runs = new ArrayList<>();
        String target = "loadgen-compare.html";
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--out")) {
                target = value(args, ++i, "--out");
            } else {
                runs.add(Results.readJson(Path.of(args[i])));
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("compare needs at least one results .json file\n" + USAGE);
        }
        Path html = Path.of(target);
        HtmlReport.write(runs, html);
        out.println("report: " + html.toAbsolutePath());
        return 0;
    }

    static final class Parsed {
        String scenario;
        final List<String> overrides = new ArrayList<>();
        final List<Long> serverPids = new ArrayList<>();
        String label;
        String out;
        boolean requireZeroLoss;
        boolean quiet;
    }

    static Parsed parse(String[] args) {
        Parsed p = new Parsed();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--server" -> {
                    String v = value(args, ++i, a);
                    int colon = v.lastIndexOf(':');
                    if (colon <= 0 || colon == v.length() - 1) {
                        throw new IllegalArgumentException("--server must be host:port, was '" + v + "'");
                    }
                    p.overrides.add("server.host=" + v.substring(0, colon));
                    p.overrides.add("server.port=" + v.substring(colon + 1));
                }
                case "--domain" -> {
                    String d = value(args, ++i, a);
                    p.overrides.add("server.domain=" + d);
                    if (p.overrides.stream().noneMatch(o -> o.startsWith("server.mucDomain="))) {
                        p.overrides.add("server.mucDomain=conference." + d);
                    }
                }
                case "--muc" -> p.overrides.add("server.mucDomain=" + value(args, ++i, a));
                case "--set" -> p.overrides.add(value(args, ++i, a));
                case "--server-pid" -> p.serverPids.addAll(ServerProcesses.parse(value(args, ++i, a)));
                case "--label" -> p.label = value(args, ++i, a);
                case "--out" -> p.out = value(args, ++i, a);
                case "--require-zero-loss" -> p.requireZeroLoss = true;
                case "--quiet" -> p.quiet = true;
                default -> {
                    if (a.startsWith("--") || p.scenario != null) {
                        throw new IllegalArgumentException("unexpected argument '" + a + "'\n" + USAGE);
                    }
                    p.scenario = a;
                }
            }
        }
        if (p.scenario == null) {
            throw new IllegalArgumentException("name a scenario (" + String.join(", ", ScenarioLoader.BUILT_IN)
                    + ") or a scenario file\n" + USAGE);
        }
        return p;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static String safe(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(Character.isLetterOrDigit(c) || c == '-' || c == '_' ? c : '_');
        }
        return b.toString();
    }
}
