package org.mucscale.standalone;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;

/**
 * {@code java -jar mucscale-standalone.jar --config mucscale.properties}: runs the MUC service as an XEP-0114
 * component until SIGTERM/SIGINT, then stops cleanly (occupants are told, the stream is closed).
 *
 * <p>Exit codes: 0 after a clean stop, 1 when the server cannot be reached or refuses the component, 2 for a bad
 * command line or config file. Every error is one line on stderr that names its cause.
 */
public final class Main {
    public static final int EXIT_OK = 0;
    public static final int EXIT_STARTUP_FAILED = 1;
    public static final int EXIT_BAD_CONFIG = 2;

    private static final String USAGE = """
            usage: java -jar mucscale-standalone.jar --config FILE
                   java -jar mucscale-standalone.jar --print-settings
              --config FILE      Java properties file with mucscale.standalone.* and mucscale.* settings
              --print-settings   list every setting with its default, range and description, then exit
            """;

    private Main() {
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != EXIT_OK) {
            System.exit(code);
        }
    }

    /** Parses the command line and runs until the JVM is asked to stop; returns an exit code on failure. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Path config = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--config" -> {
                    if (i + 1 >= args.length) {
                        err.println("mucscale: --config needs a file name");
                        err.print(USAGE);
                        return EXIT_BAD_CONFIG;
                    }
                    config = Path.of(args[++i]);
                }
                case "--print-settings" -> {
                    printSettings(out);
                    return EXIT_OK;
                }
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return EXIT_OK;
                }
                default -> {
                    err.println("mucscale: unknown option '" + args[i] + "'");
                    err.print(USAGE);
                    return EXIT_BAD_CONFIG;
                }
            }
        }
        if (config == null) {
            err.println("mucscale: --config FILE is required");
            err.print(USAGE);
            return EXIT_BAD_CONFIG;
        }
        Settings settings;
        try {
            settings = load(config);
        } catch (IOException e) {
            err.println("mucscale: cannot read config file " + config + ": " + e);
            return EXIT_BAD_CONFIG;
        } catch (InvalidSettingException e) {
            for (String problem : e.problems()) {
                err.println("mucscale: config file " + config + ": " + problem);
            }
            return EXIT_BAD_CONFIG;
        }
        StandaloneServer server;
        try {
            server = StandaloneServer.start(settings);
        } catch (InvalidSettingException e) {
            for (String problem : e.problems()) {
                err.println("mucscale: config file " + config + ": " + problem);
            }
            return EXIT_BAD_CONFIG;
        } catch (ComponentException e) {
            err.println("mucscale: " + e.getMessage());
            return EXIT_STARTUP_FAILED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "mucscale-shutdown"));
        out.println("mucscale: running as " + server.connection().domain() + "; stop with SIGTERM");
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return EXIT_OK;
    }

    /** Reads a properties file (UTF-8) and validates it against {@link StandaloneServer#catalog()}. */
    static Settings load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> text = new LinkedHashMap<>();
        for (String key : p.stringPropertyNames()) {
            text.put(key.trim(), p.getProperty(key));
        }
        return Settings.fromText(StandaloneServer.catalog(), text);
    }

    private static void printSettings(PrintStream out) {
        for (Setting<?> s : StandaloneServer.catalog()) {
            out.println("# " + s.description() + " (" + s.allowed() + (s.dynamic() ? ", dynamic" : "") + ")");
            out.println(s.key() + "=" + format(s));
            out.println();
        }
    }

    private static <T> String format(Setting<T> s) {
        return s.format(s.defaultValue());
    }
}
