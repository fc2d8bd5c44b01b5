package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A throwaway MariaDB server from the installed Debian binaries ({@code /usr/sbin/mariadbd},
 * {@code mariadb-install-db}, run once per JVM and copied): its own data directory under a temp folder, a free
 * loopback port, a utf8mb4 database and a real (password) user. {@link #stop()} and {@link #start()} keep the data
 * directory and the port, so a test can take the database away and bring it back; {@link #close()} stops it and
 * deletes everything.
 *
 * <pre>{@code
 * try (MariaDbServer db = MariaDbServer.startNew()) {
 *     DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
 * }
 * }</pre>
 *
 * Durability is relaxed for speed ({@code innodb_flush_log_at_trx_commit=2}, no binlog): a server stop loses
 * nothing, an OS crash might, which no test here causes.
 *
 * <p>A test class that only needs a database, not a server it may stop, takes its own database on the JVM's
 * {@linkplain #shared() shared server} (installing and starting one cost seconds, more on a busy machine):
 * <pre>{@code
 * MariaDbServer.Database db = MariaDbServer.shared().newDatabase("MyTest");   // in @BeforeAll
 * db.close();                                                                  // in @AfterAll: drops it
 * }</pre>
 * Invariants of the shared server: it runs from first use until JVM exit (the shutdown hook kills it and deletes
 * its files); no test stops, kills or closes it (those calls throw); each class works only in its own database,
 * with its own user, so classes stay independent of one another and of the order they run in.
 */
public final class MariaDbServer implements AutoCloseable {
    private static final String MARIADBD = "/usr/sbin/mariadbd";
    private static final String INSTALL_DB = "/usr/bin/mariadb-install-db";
    private static final String CLIENT = "/usr/bin/mariadb";
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final AtomicInteger DATABASES = new AtomicInteger();
    /** The JVM's shared server, or null before first use; guarded by MariaDbServer.class. */
    private static MariaDbServer sharedServer;
    /** See {@link #installedTemplate()}; guarded by MariaDbServer.class. */
    private static Path template;

    private final Path baseDir;
    private final Path dataDir;
    private final Path socket;
    private final Path errorLog;
    private final int port;
    private final List<String> extraOptions;
    private final Thread shutdownHook;
    private final boolean shared;
    private Process process;
    private boolean closed;

    private MariaDbServer(List<String> extraOptions, boolean shared) throws IOException {
        this.shared = shared;
        this.baseDir = Files.createTempDirectory("mucscale-mariadb-");
        this.dataDir = baseDir.resolve("data");
        this.socket = baseDir.resolve("mysqld.sock");
        this.errorLog = baseDir.resolve("error.log");
        this.port = FreePort.next();
        this.extraOptions = List.copyOf(extraOptions);
        this.shutdownHook = new Thread(this::killQuietly, "mariadb-" + port + "-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Installs a fresh data directory, starts the server and creates database {@code mucscale} owned by user
     * {@code mucscale}. Extra options are passed to mariadbd as given (e.g. {@code "--max-connections=50"}).
     */
    public static MariaDbServer startNew(String... extraMariadbdOptions) {
        return startNew(List.of(extraMariadbdOptions), false);
    }

    /**
     * The one server of this JVM that test classes share, each in its own {@link #newDatabase}: started on the first
     * call, killed at JVM exit. {@link #stop()}, {@link #kill()} and {@link #close()} refuse it: a test that takes its
     * database away starts a server of its own with {@link #startNew}.
     */
    public static synchronized MariaDbServer shared() {
        if (sharedServer == null) {
            sharedServer = startNew(List.of(), true);
        }
        return sharedServer;
    }

    private static MariaDbServer startNew(List<String> extraMariadbdOptions, boolean shared) {
        MariaDbServer server;
        try {
            server = new MariaDbServer(extraMariadbdOptions, shared);
        } catch (IOException e) {
            throw new UncheckedIOException("no temp dir for MariaDB", e);
        }
        try {
            server.install();
            server.start();
            server.rootSql("CREATE DATABASE " + server.database()
                    + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"
                    + " CREATE USER '" + server.user() + "'@'%' IDENTIFIED BY '" + server.password() + "';"
                    + " GRANT ALL PRIVILEGES ON " + server.database() + ".* TO '" + server.user() + "'@'%';");
            return server;
        } catch (RuntimeException e) {
            server.discard();
            throw e;
        }
    }

    /**
     * A new empty utf8mb4 database on this server with a user of its own that may use only it, for one test class;
     * {@link Database#close()} drops both. The label (e.g. the class's simple name) makes it easy to recognise.
     */
    public Database newDatabase(String label) {
        String name = ("t" + DATABASES.incrementAndGet() + "_" + label.replaceAll("[^A-Za-z0-9]", "_"))
                .toLowerCase(Locale.ROOT);
        name = name.substring(0, Math.min(name.length(), 48));
        rootSql("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"
                + " CREATE USER '" + name + "'@'%' IDENTIFIED BY '" + password() + "';"
                + " GRANT ALL PRIVILEGES ON `" + name + "`.* TO '" + name + "'@'%';");
        return new Database(this, name);
    }

    /** A copy of the JVM's freshly installed data directory: copying is several times faster than installing. */
    private void install() {
        ProcessRunner.run(List.of("cp", "-a", installedTemplate().toString(), dataDir.toString()), 120);
    }

    /**
     * The data directory mariadb-install-db made, once per JVM, before any server ran on it (so every copy starts as
     * a fresh install would); deleted at JVM exit.
     */
    private static synchronized Path installedTemplate() {
        if (template == null) {
            Path dir;
            try {
                dir = Files.createTempDirectory("mucscale-mariadb-template-");
            } catch (IOException e) {
                throw new UncheckedIOException("no temp dir for MariaDB", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessRunner.deleteTree(dir),
                    "mariadb-template-cleanup"));
            List<String> cmd = new ArrayList<>(List.of(INSTALL_DB, "--no-defaults", "--datadir=" + dir.resolve("data"),
                    "--auth-root-authentication-method=socket", "--skip-test-db", "--skip-name-resolve"));
            if (ProcessRunner.runningAsRoot()) {
                cmd.add("--user=root");
            }
            ProcessRunner.run(cmd, 120);
            template = dir.resolve("data");
        }
        return template;
    }

    /** Starts (or restarts, after {@link #stop()}) the server on the same data directory and port; waits until ready. */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("MariaDB server on port " + port + " is closed");
        }
        if (isRunning()) {
            return;
        }
        List<String> cmd = new ArrayList<>(List.of(MARIADBD, "--no-defaults",
                "--datadir=" + dataDir,
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + socket,
                "--pid-file=" + baseDir.resolve("mysqld.pid"),
                "--log-error=" + errorLog,
                "--skip-name-resolve",
                "--skip-log-bin",
                "--performance-schema=OFF",
                "--innodb-flush-log-at-trx-commit=2",
                "--innodb-buffer-pool-size=256M",
                "--innodb-log-file-size=128M",
                "--max-allowed-packet=64M",
                "--max-connections=300",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_unicode_ci"));
        if (ProcessRunner.runningAsRoot()) {
            cmd.add("--user=root");
        }
        cmd.addAll(extraOptions);
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(baseDir.resolve("stdout.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + MARIADBD, e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        Process p = process;
        if (!ProcessRunner.waitForPort(port, deadline, p::isAlive)) {
            p.destroyForcibly();
            throw new IllegalStateException("MariaDB did not start on port " + port + ":\n"
                    + ProcessRunner.tail(errorLog, 4000));
        }
    }

    /** Shuts the server down cleanly (SIGTERM) and waits; data directory and port are kept for {@link #start()}. */
    public synchronized void stop() {
        refuseIfShared("stopped");
        stopProcess();
    }

    private synchronized void stopProcess() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    /** Kills the server with SIGKILL (a crash, not a shutdown); {@link #start()} runs crash recovery. */
    public synchronized void kill() {
        refuseIfShared("killed");
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** OS process id of the running server (e.g. to read its CPU time from /proc in benchmarks), or -1. */
    public synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Runs SQL as the server's root user through the mariadb client over the unix socket; returns the client's
     * tab-separated output (no column names). Statements end with {@code ;}.
     */
    public String rootSql(String sql) {
        return ProcessRunner.run(List.of(CLIENT, "--no-defaults", "--socket=" + socket, "--user=root",
                "--batch", "--skip-column-names", "--default-character-set=utf8mb4"), sql, 60);
    }

    /** mysql-connector-j URL, e.g. {@code jdbc:mysql://127.0.0.1:3306/mucscale}; append parameters with {@code ?}. */
    public String jdbcUrl() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + database();
    }

    /** MariaDB Connector/J URL for the same database. */
    public String mariadbJdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database();
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String database() {
        return "mucscale";
    }

    public String user() {
        return "mucscale";
    }

    public String password() {
        return "mucscale-test-pw";
    }

    public Path dataDir() {
        return dataDir;
    }

    private void refuseIfShared(String what) {
        if (shared) {
            throw new IllegalStateException("the JVM's shared MariaDB is not " + what + " by a test (other classes use"
                    + " it): a test that takes the database away starts its own with MariaDbServer.startNew()");
        }
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
        refuseIfShared("closed");
        discard();
    }

    private synchronized void discard() {
        if (closed) {
            return;
        }
        closed = true;
        stopProcess();
        ProcessRunner.deleteTree(baseDir);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook itself is running
        }
    }

    private void killQuietly() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
        try {
            ProcessRunner.deleteTree(baseDir);
        } catch (RuntimeException ignored) {
            // best effort on JVM exit
        }
    }

    @Override
    public String toString() {
        return "MariaDB on 127.0.0.1:" + port + " (" + dataDir + ")";
    }

    /**
     * One test class's database on a (usually the {@linkplain #shared() shared}) server, with its own user; the
     * accessors mirror the server's, so a class switches by replacing the server with this. Close drops it.
     */
    public static final class Database implements AutoCloseable {
        private final MariaDbServer server;
        private final String name;

        private Database(MariaDbServer server, String name) {
            this.server = server;
            this.name = name;
        }

        /** mysql-connector-j URL of this database; append parameters with {@code ?}. */
        public String jdbcUrl() {
            return "jdbc:mysql://127.0.0.1:" + server.port() + "/" + name;
        }

        /** MariaDB Connector/J URL of this database. */
        public String mariadbJdbcUrl() {
            return "jdbc:mariadb://127.0.0.1:" + server.port() + "/" + name;
        }

        public String host() {
            return server.host();
        }

        public int port() {
            return server.port();
        }

        public String database() {
            return name;
        }

        public String user() {
            return name;
        }

        public String password() {
            return server.password();
        }

        public MariaDbServer server() {
            return server;
        }

        /** Runs SQL as the server's root user ({@link MariaDbServer#rootSql}). */
        public String rootSql(String sql) {
            return server.rootSql(sql);
        }

        /** Drops the database and its user; close the class's connection pools first. */
        @Override
        public void close() {
            server.rootSql("DROP DATABASE IF EXISTS `" + name + "`; DROP USER IF EXISTS '" + name + "'@'%';");
        }

        @Override
        public String toString() {
            return "database " + name + " on " + server;
        }
    }
}
