package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A throwaway PostgreSQL 15 server from the installed Debian binaries ({@code /usr/lib/postgresql/15/bin}): initdb
 * (run once per JVM and copied) into a temp folder, started with pg_ctl on a free loopback port, with database
 * {@code mucscale} owned by a real password user {@code mucscale} (scram-sha-256 over TCP). PostgreSQL refuses to
 * run as root, so when the JVM is root every server command runs as the {@code postgres} system user, which owns
 * the temp folder.
 *
 * <p>{@link #stop()} (fast shutdown) and {@link #start()} keep the data directory and port, for outage tests;
 * {@link #close()} stops the server and deletes everything. fsync, synchronous commit and full page writes are off:
 * a clean stop loses nothing, an OS crash could, which no test causes.
 *
 * <p>A test class that only needs a database, not a server it may stop, takes its own database on the JVM's
 * {@linkplain #shared() shared server} (initdb and a start cost seconds, more on a busy machine):
 * {@code PostgresServer.shared().newDatabase("MyTest")} in {@code @BeforeAll}, {@code close()} in {@code @AfterAll}.
 * Invariants of the shared server: it runs from first use until JVM exit (the shutdown hook stops it and deletes its
 * files); no test stops, kills or closes it (those calls throw); each class works only in its own database, owned by
 * its own role.
 */
public final class PostgresServer implements AutoCloseable {
    private static final String BIN = "/usr/lib/postgresql/15/bin/";
    private static final String OS_USER = "postgres";
    private static final AtomicInteger DATABASES = new AtomicInteger();
    /** The JVM's shared server, or null before first use; guarded by PostgresServer.class. */
    private static PostgresServer sharedServer;
    /** See {@link #initializedTemplate()}; guarded by PostgresServer.class. */
    private static Path template;

    private final Path baseDir;
    private final Path dataDir;
    private final Path logFile;
    private final int port;
    private final List<String> extraSettings;
    private final Thread shutdownHook;
    private final boolean shared;
    private boolean running;
    private boolean closed;

    private PostgresServer(List<String> extraSettings, boolean shared) throws IOException {
        this.shared = shared;
        this.baseDir = Files.createTempDirectory("mucscale-pg-");
        this.dataDir = baseDir.resolve("data");
        this.logFile = baseDir.resolve("postgres.log");
        this.port = FreePort.next();
        this.extraSettings = List.copyOf(extraSettings);
        this.shutdownHook = new Thread(this::killQuietly, "postgres-" + port + "-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Runs initdb, starts the server and creates the {@code mucscale} user and database. Extra settings are
     * {@code name=value} pairs passed as {@code -c name=value} (e.g. {@code "max_connections=50"}).
     */
    public static PostgresServer startNew(String... extraSettings) {
        return startNew(List.of(extraSettings), false);
    }

    /**
     * The one server of this JVM that test classes share, each in its own {@link #newDatabase}: started on the first
     * call, stopped at JVM exit. {@link #stop()}, {@link #kill()} and {@link #close()} refuse it: a test that takes
     * its database away starts a server of its own with {@link #startNew}.
     */
    public static synchronized PostgresServer shared() {
        if (sharedServer == null) {
            sharedServer = startNew(List.of(), true);
        }
        return sharedServer;
    }

    private static PostgresServer startNew(List<String> extraSettings, boolean shared) {
        PostgresServer server;
        try {
            server = new PostgresServer(extraSettings, shared);
        } catch (IOException e) {
            throw new UncheckedIOException("no temp dir for PostgreSQL", e);
        }
        try {
            server.initdb();
            server.start();
            server.superuserSql("CREATE ROLE " + server.user() + " LOGIN PASSWORD '" + server.password() + "'");
            server.superuserSql("CREATE DATABASE " + server.database() + " OWNER " + server.user()
                    + " ENCODING 'UTF8'");
            return server;
        } catch (RuntimeException e) {
            server.discard();
            throw e;
        }
    }

    /**
     * A new empty UTF8 database on this server owned by a login role of its own, for one test class;
     * {@link Database#close()} drops both. The label (e.g. the class's simple name) makes it easy to recognise.
     */
    public Database newDatabase(String label) {
        String name = ("t" + DATABASES.incrementAndGet() + "_" + label.replaceAll("[^A-Za-z0-9]", "_"))
                .toLowerCase(Locale.ROOT);
        name = name.substring(0, Math.min(name.length(), 48));
        superuserSql("CREATE ROLE " + name + " LOGIN PASSWORD '" + password() + "'");
        superuserSql("CREATE DATABASE " + name + " OWNER " + name + " ENCODING 'UTF8'");
        // by default every role may connect to every database: only its own role (and the superuser) may to this one
        superuserSql("REVOKE CONNECT, TEMPORARY ON DATABASE " + name + " FROM PUBLIC");
        return new Database(this, name);
    }

    /** A copy of the JVM's fresh initdb: copying is several times faster than initdb. */
    private void initdb() {
        Path initialized = initializedTemplate();
        if (ProcessRunner.runningAsRoot()) {
            ProcessRunner.run(List.of("chown", "-R", OS_USER + ":" + OS_USER, baseDir.toString()), 30);
        }
        ProcessRunner.run(ProcessRunner.asUser(OS_USER, List.of("cp", "-a", initialized.toString(),
                dataDir.toString())), 120);
    }

    /** The data directory initdb made, once per JVM, before any server ran on it; deleted at JVM exit. */
    private static synchronized Path initializedTemplate() {
        if (template == null) {
            Path dir;
            try {
                dir = Files.createTempDirectory("mucscale-pg-template-");
            } catch (IOException e) {
                throw new UncheckedIOException("no temp dir for PostgreSQL", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessRunner.deleteTree(dir),
                    "postgres-template-cleanup"));
            if (ProcessRunner.runningAsRoot()) {
                ProcessRunner.run(List.of("chown", "-R", OS_USER + ":" + OS_USER, dir.toString()), 30);
            }
            ProcessRunner.run(ProcessRunner.asUser(OS_USER, List.of(BIN + "initdb", "-D", dir.resolve("data")
                    .toString(), "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--auth-local=trust",
                    "--auth-host=scram-sha-256", "--no-sync")), 120);
            template = dir.resolve("data");
        }
        return template;
    }

    /** Starts (or restarts after {@link #stop()}) on the same data directory and port; returns when it accepts. */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("PostgreSQL server on port " + port + " is closed");
        }
        if (running) {
            return;
        }
        StringBuilder options = new StringBuilder()
                .append("-p ").append(port)
                .append(" -c listen_addresses=127.0.0.1")
                .append(" -c unix_socket_directories=").append(baseDir)
                .append(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
                .append(" -c max_connections=200 -c shared_buffers=128MB");
        for (String s : extraSettings) {
            options.append(" -c ").append(s);
        }
        try {
            ProcessRunner.run(ProcessRunner.asUser(OS_USER, List.of(BIN + "pg_ctl", "-D", dataDir.toString(),
                    "-l", logFile.toString(), "-w", "-t", "60", "-o", options.toString(), "start")), 90);
        } catch (RuntimeException e) {
            throw new IllegalStateException("PostgreSQL did not start on port " + port + ": " + e.getMessage()
                    + "\n" + ProcessRunner.tail(logFile, 4000), e);
        }
        running = true;
    }

    /** Fast shutdown (open sessions are cut, as when a database goes away); data directory and port are kept. */
    public synchronized void stop() {
        refuseIfShared("stopped");
        if (!running) {
            return;
        }
        pgCtlStop("fast");
        running = false;
    }

    /** Immediate shutdown, the nearest to a crash: {@link #start()} runs crash recovery. */
    public synchronized void kill() {
        refuseIfShared("killed");
        if (!running) {
            return;
        }
        pgCtlStop("immediate");
        running = false;
    }

    private void pgCtlStop(String mode) {
        ProcessRunner.run(ProcessRunner.asUser(OS_USER, List.of(BIN + "pg_ctl", "-D", dataDir.toString(),
                "-m", mode, "-w", "-t", "60", "stop")), 90);
    }

    public synchronized boolean isRunning() {
        return running;
    }

    /** Runs one SQL command as the superuser through psql over the unix socket; returns psql's unaligned output. */
    public String superuserSql(String sql) {
        return superuserSql("postgres", sql);
    }

    /** Same, in the given database. */
    public String superuserSql(String databaseName, String sql) {
        return ProcessRunner.run(ProcessRunner.asUser(OS_USER, List.of(BIN + "psql", "-h", baseDir.toString(),
                "-p", Integer.toString(port), "-U", "postgres", "-d", databaseName, "-v", "ON_ERROR_STOP=1",
                "-X", "-A", "-t", "-c", sql)), 60);
    }

    /** e.g. {@code jdbc:postgresql://127.0.0.1:5432/mucscale}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database();
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
            throw new IllegalStateException("the JVM's shared PostgreSQL is not " + what + " by a test (other classes"
                    + " use it): a test that takes the database away starts its own with PostgresServer.startNew()");
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
        try {
            if (running) {
                pgCtlStop("fast");
            }
        } catch (RuntimeException e) {
            killQuietly();
        }
        running = false;
        ProcessRunner.deleteTree(baseDir);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook itself is running
        }
    }

    private void killQuietly() {
        try {
            if (Files.exists(dataDir.resolve("postmaster.pid"))) {
                List<String> cmd = new ArrayList<>(ProcessRunner.asUser(OS_USER, List.of(BIN + "pg_ctl", "-D",
                        dataDir.toString(), "-m", "immediate", "-w", "stop")));
                ProcessRunner.run(cmd, 30);
            }
        } catch (RuntimeException ignored) {
            // best effort on JVM exit
        }
        try {
            ProcessRunner.deleteTree(baseDir);
        } catch (RuntimeException ignored) {
            // best effort on JVM exit
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL on 127.0.0.1:" + port + " (" + dataDir + ")";
    }

    /**
     * One test class's database on a (usually the {@linkplain #shared() shared}) server, owned by its own role; the
     * accessors mirror the server's, so a class switches by replacing the server with this. Close drops it.
     */
    public static final class Database implements AutoCloseable {
        private final PostgresServer server;
        private final String name;

        private Database(PostgresServer server, String name) {
            this.server = server;
            this.name = name;
        }

        public String jdbcUrl() {
            return "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + name;
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

        public PostgresServer server() {
            return server;
        }

        /** Runs one SQL command as the superuser in this database. */
        public String superuserSql(String sql) {
            return server.superuserSql(name, sql);
        }

        /** Drops the database (cutting any session still open in it) and its role. */
        @Override
        public void close() {
            server.superuserSql("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            server.superuserSql("DROP ROLE IF EXISTS " + name);
        }

        @Override
        public String toString() {
            return "database " + name + " on " + server;
        }
    }
}
