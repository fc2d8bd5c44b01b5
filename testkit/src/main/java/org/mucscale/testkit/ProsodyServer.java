package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway Prosody (Debian's /usr/bin/prosody, 0.12) for tests: a generated config in a temp dir, one
 * VirtualHost on free loopback ports, s2s and http off, plain-text auth allowed (loopback only), optional own MUC
 * component and optional XEP-0114 external components. Users are created with prosodyctl against the same config.
 *
 * <pre>
 * try (ProsodyServer xmpp = ProsodyServer.builder().domain("example.test")
 *         .externalComponent("muc", "secret").user("alice", "pw").start()) {
 *     int c2s = xmpp.c2sPort();               // clients connect to 127.0.0.1:c2s
 *     int component = xmpp.componentPort();   // the XEP-0114 component connects here as muc.example.test
 * }
 * </pre>
 *
 * <p>Thread safety: build and close from one thread; the accessors and {@link #createUser} may be called from any.
 */
public final class ProsodyServer implements AutoCloseable {
    public static final String PROSODY = "/usr/bin/prosody";
    public static final String PROSODYCTL = "/usr/bin/prosodyctl";
    public static final String HOST = "127.0.0.1";

    private final Builder options;
    private final Path dir;
    private final Path configFile;
    private final Path logFile;
    private final int c2sPort;
    private final int componentPort;
    /** Prosody's HTTP listener for mod_websocket ({@link Builder#websocket}), or -1. */
    private final int httpPort;
    private volatile Process process;

    private ProsodyServer(Builder options) throws IOException {
        this.options = options;
        this.dir = Files.createTempDirectory("mucscale-prosody-");
        this.configFile = dir.resolve("prosody.cfg.lua");
        this.logFile = dir.resolve("prosody.log");
        this.c2sPort = FreePort.next();
        this.componentPort = options.components.isEmpty() ? -1 : FreePort.next();
        this.httpPort = options.websocket ? FreePort.next() : -1;
        Files.createDirectories(dir.resolve("data"));
        Files.createDirectories(dir.resolve("certs"));
        Files.writeString(configFile, config(), StandardCharsets.UTF_8);
        Process started = null;
        try {
            // Before start: prosodyctl writes account files directly, so users exist when the first client connects.
            for (Map.Entry<String, String> u : options.users.entrySet()) {
                createUser(u.getKey(), u.getValue());
            }
            started = launch();
            this.process = started;
            awaitPorts();
        } catch (IOException | RuntimeException e) {
            if (started != null) {
                stop(started);
            }
            String log = tail();
            deleteTree(dir);
            throw new IllegalStateException("prosody did not start: " + e.getMessage() + "\n" + log, e);
        }
    }

    private Process launch() throws IOException {
        return new ProcessBuilder(PROSODY, "-F", "--config", configFile.toString())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.txt").toFile()))
                .start();
    }

    private void awaitPorts() throws IOException {
        awaitPort(c2sPort);
        if (componentPort > 0) {
            awaitPort(componentPort);
        }
        if (httpPort > 0) {
            awaitPort(httpPort);
        }
    }

    /**
     * Stops prosody and starts it again on the same ports, config and data (accounts survive; sessions and
     * component connections do not), e.g. to test that a component reconnects.
     */
    public void restart() {
        stop(process);
        try {
            process = launch();
            awaitPorts();
        } catch (IOException e) {
            throw new IllegalStateException("prosody did not restart: " + e.getMessage() + "\n" + tail(), e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The VirtualHost, e.g. {@code localhost}. */
    public String domain() { return options.domain; }

    /** Always {@value #HOST}. */
    public String host() { return HOST; }

    public int c2sPort() { return c2sPort; }

    /** XMPP over WebSocket (RFC 7395): ws://127.0.0.1:httpPort/xmpp-websocket; only with {@link Builder#websocket}. */
    public int httpPort() {
        if (httpPort < 0) {
            throw new IllegalStateException("started without websocket(true)");
        }
        return httpPort;
    }

    /** Port for XEP-0114 components; -1 when no external component was configured. */
    public int componentPort() {
        if (componentPort < 0) {
            throw new IllegalStateException("no external component configured; use Builder.externalComponent");
        }
        return componentPort;
    }

    /** Domain of Prosody's own MUC ({@code conference.<domain>}), or null when it is off. */
    public String prosodyMucDomain() {
        return options.prosodyMuc ? "conference." + options.domain : null;
    }

    /** Full domain of an external component given by its subdomain ({@code muc} becomes {@code muc.<domain>}). */
    public String componentDomain(String subdomain) {
        return subdomain + "." + options.domain;
    }

    /** The secret configured for an external component (subdomain). */
    public String componentSecret(String subdomain) {
        String secret = options.components.get(subdomain);
        if (secret == null) {
            throw new IllegalArgumentException("no external component " + subdomain + " configured");
        }
        return secret;
    }

    public Path dir() { return dir; }
    public Path configFile() { return configFile; }
    public Path logFile() { return logFile; }

    /** Creates (or re-sets the password of) an account with prosodyctl; works while the server runs. */
    public void createUser(String localPart, String password) {
        run(PROSODYCTL, "--config", configFile.toString(), "register", localPart, options.domain, password);
    }

    /** Creates many accounts quickly by writing prosody's internal_plain account files directly. */
    public void createUsers(Map<String, String> localPartToPassword) {
        Path accounts = dir.resolve("data").resolve(encode(options.domain)).resolve("accounts");
        try {
            Files.createDirectories(accounts);
            for (Map.Entry<String, String> u : localPartToPassword.entrySet()) {
                Files.writeString(accounts.resolve(encode(u.getKey().toLowerCase(java.util.Locale.ROOT)) + ".dat"),
                        "return {\n\t[\"password\"] = " + luaString(u.getValue()) + ";\n};\n", StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Last lines of prosody's log, for failure messages. */
    public String tail() {
        StringBuilder sb = new StringBuilder();
        for (Path p : new Path[] {dir.resolve("stdout.txt"), logFile}) {
            try {
                if (Files.exists(p)) {
                    List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
                    int from = Math.max(0, lines.size() - 40);
                    sb.append("--- ").append(p.getFileName()).append('\n');
                    for (String l : lines.subList(from, lines.size())) {
                        sb.append(l).append('\n');
                    }
                }
            } catch (IOException e) {
                sb.append("(cannot read ").append(p).append(": ").append(e.getMessage()).append(")\n");
            }
        }
        return sb.toString();
    }

    /** Process id of the running prosody (e.g. to sample its CPU time in a benchmark). */
    public long pid() {
        return process.pid();
    }

    public boolean isRunning() {
        return process.isAlive();
    }

    /** Stops prosody (SIGTERM, then SIGKILL after 5 s) and deletes its directory. */
    @Override
    public void close() {
        stop(process);
        if (!options.keepDirectory) {
            deleteTree(dir);
        }
    }

    private static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void awaitPort(int port) throws IOException {
        long deadline = System.nanoTime() + options.startTimeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("prosody exited with code " + process.exitValue());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getByName(HOST), port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("port " + port + " not accepting after " + options.startTimeout.toMillis()
                            + " ms");
                }
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for prosody");
            }
        }
    }

    private void run(String... command) {
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: "
                        + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private String config() {
        String d = dir.toString();
        StringBuilder c = new StringBuilder(2048);
        c.append("-- generated by org.mucscale.testkit.ProsodyServer for a test run; deleted on close\n");
        c.append("data_path = ").append(luaString(d + "/data")).append('\n');
        c.append("pidfile = ").append(luaString(d + "/prosody.pid")).append('\n');
        c.append("certificates = ").append(luaString(d + "/certs")).append('\n');
        c.append("run_as_root = true\n");
        c.append("daemonize = false\n");
        c.append("log = { { levels = { min = ").append(luaString(options.logLevel)).append(" }, to = \"file\", filename = ")
                .append(luaString(logFile.toString())).append(" } }\n");
        c.append("plugin_paths = {}\n");
        c.append("modules_enabled = { \"roster\"; \"saslauth\"; \"disco\"; \"ping\"; \"presence\"; \"message\"; \"iq\"");
        if (options.allowRegistration) {
            c.append("; \"register\"");
        }
        for (String m : options.extraModules) {
            c.append("; ").append(luaString(m));
        }
        if (options.websocket) {
            c.append("; \"websocket\"");
        }
        c.append(" }\n");
        c.append("modules_disabled = { \"s2s\"; \"tls\"; \"admin_telnet\"; \"bosh\"")
                .append(options.websocket ? "" : "; \"http\"; \"websocket\"").append(" }\n");
        c.append("interfaces = { \"127.0.0.1\" }\n");
        c.append("local_interfaces = { \"127.0.0.1\" }\n");
        c.append("c2s_ports = { ").append(c2sPort).append(" }\n");
        c.append("c2s_interfaces = { \"127.0.0.1\" }\n");
        c.append("c2s_direct_tls_ports = {}\n");
        c.append("legacy_ssl_ports = {}\n");
        c.append("s2s_ports = {}\n");
        if (httpPort > 0) {
            c.append("http_ports = { ").append(httpPort).append(" }\n");
            c.append("http_interfaces = { \"127.0.0.1\" }\n");
            // plain ws on loopback: let SASL PLAIN through as on the plain c2s port
            c.append("consider_websocket_secure = true\n");
        } else {
            c.append("http_ports = {}\n");
        }
        c.append("https_ports = {}\n");
        if (componentPort > 0) {
            c.append("component_ports = { ").append(componentPort).append(" }\n");
            c.append("component_interfaces = { \"127.0.0.1\" }\n");
        } else {
            c.append("component_ports = {}\n");
        }
        c.append("authentication = \"internal_plain\"\n");
        c.append("storage = \"internal\"\n");
        c.append("allow_registration = ").append(options.allowRegistration).append('\n');
        c.append("min_seconds_between_registrations = 0\n");
        c.append("allow_unencrypted_plain_auth = true\n");
        c.append("c2s_require_encryption = false\n");
        c.append("s2s_require_encryption = false\n");
        // Tests send oversized stanzas on purpose; the limits are explicit so a test knows which side refuses them.
        c.append("c2s_stanza_size_limit = ").append(options.c2sStanzaSizeLimitBytes).append('\n');
        c.append("component_stanza_size_limit = ").append(options.componentStanzaSizeLimitBytes).append('\n');
        for (String line : options.extraGlobalLines) {
            c.append(line).append('\n');
        }
        c.append('\n').append("VirtualHost ").append(luaString(options.domain)).append('\n');
        if (options.prosodyMuc) {
            c.append('\n').append("Component ").append(luaString("conference." + options.domain)).append(" \"muc\"\n");
            c.append("  restrict_room_creation = false\n");
        }
        for (Map.Entry<String, String> comp : options.components.entrySet()) {
            c.append('\n').append("Component ").append(luaString(componentDomain(comp.getKey()))).append('\n');
            c.append("  component_secret = ").append(luaString(comp.getValue())).append('\n');
        }
        return c.toString();
    }

    /** Prosody's file-name encoding for storage paths (datamanager.encode: every non-alnum byte as %xx). */
    private static String encode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
                sb.append((char) c);
            } else {
                sb.append('%').append(String.format("%02x", c));
            }
        }
        return sb.toString();
    }

    private static String luaString(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\') {
                sb.append('\\');
            } else if (ch == '\n') {
                sb.append("\\n");
                continue;
            }
            sb.append(ch);
        }
        return sb.append('"').toString();
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort: a leftover temp file must not fail the test that is cleaning up
                }
            });
        } catch (IOException ignored) {
            // same
        }
    }

    /** Options; {@link #start()} launches the server and waits until its ports accept connections. */
    public static final class Builder {
        private String domain = "localhost";
        private boolean allowRegistration;
        private boolean prosodyMuc;
        private boolean keepDirectory;
        private boolean websocket;
        private String logLevel = "info";
        private Duration startTimeout = Duration.ofSeconds(20);
        private int c2sStanzaSizeLimitBytes = 256 * 1024;
        private int componentStanzaSizeLimitBytes = 1024 * 1024;
        private final Map<String, String> components = new LinkedHashMap<>();
        private final Map<String, String> users = new LinkedHashMap<>();
        private final List<String> extraModules = new ArrayList<>();
        private final List<String> extraGlobalLines = new ArrayList<>();

        private Builder() {
        }

        /** The VirtualHost; default {@code localhost}. */
        public Builder domain(String value) {
            this.domain = value;
            return this;
        }

        /** In-band registration (XEP-0077) over the plain loopback connection; default off. */
        public Builder allowRegistration(boolean value) {
            this.allowRegistration = value;
            return this;
        }

        /** Prosody's own MUC at {@code conference.<domain>}; default off (so disco finds ours). */
        public Builder prosodyMuc(boolean value) {
            this.prosodyMuc = value;
            return this;
        }

        /** An XEP-0114 component at {@code <subdomain>.<domain>} with this secret. */
        public Builder externalComponent(String subdomain, String secret) {
            components.put(subdomain, secret);
            return this;
        }

        /** An account created before start. */
        public Builder user(String localPart, String password) {
            users.put(localPart, password);
            return this;
        }

        /** Another prosody module to load (e.g. "blocklist", "vcard", "carbons"). */
        public Builder module(String name) {
            extraModules.add(name);
            return this;
        }

        /** A raw global config line, e.g. {@code "limits = { c2s = { rate = \"10kb/s\" } }"}. */
        public Builder globalConfig(String luaLine) {
            extraGlobalLines.add(luaLine);
            return this;
        }

        /** prosody log level: debug (logs every stanza), info (default), warn, error. */
        public Builder logLevel(String value) {
            this.logLevel = value;
            return this;
        }

        public Builder c2sStanzaSizeLimitBytes(int value) {
            this.c2sStanzaSizeLimitBytes = value;
            return this;
        }

        public Builder componentStanzaSizeLimitBytes(int value) {
            this.componentStanzaSizeLimitBytes = value;
            return this;
        }

        public Builder startTimeout(Duration value) {
            this.startTimeout = value;
            return this;
        }

        /** mod_websocket on an HTTP port of its own ({@link ProsodyServer#httpPort}); default off. */
        public Builder websocket(boolean value) {
            this.websocket = value;
            return this;
        }

        /** Keep the temp dir after close (to read its log); default false. */
        public Builder keepDirectory(boolean value) {
            this.keepDirectory = value;
            return this;
        }

        public ProsodyServer start() {
            try {
                return new ProsodyServer(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare prosody's directory", e);
            }
        }
    }
}
