package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A throwaway PostgreSQL 15 server from the installed Debian binaries ({@code /usr/lib/postgresql/15/bin}): initdb
 * into a temp folder, started with pg_ctl on a free loopback port, with database {@code mucscale} owned by a real
 * password user {@code mucscale} (scram-sha-256 over TCP). PostgreSQL refuses to run as root, so when the JVM is
 * root every server command runs as the {@code postgres} system user, which owns the temp folder.
 *
 * <p>{@link #stop()} (fast shutdown) and {@link #start()} keep the data directory and port, for outage tests;
 * {@link #close()} stops the server and deletes everything. fsync, synchronous commit and full page writes are off:
 * a clean stop loses nothing, an OS crash could, which no test causes.
 */
public final class PostgresServer implements AutoCloseable {
    private static final String BIN = "/usr/lib/postgresql/15/bin/";
    private static final String OS_USER = "postgres";

    private final Path baseDir;
    private final Path dataDir;
    private final Path logFile;
    private final int port;
    private final List<String> extraSettings;
    private final Thread shutdownHook;
    private boolean running;
    private boolean closed;

    private PostgresServer(List<String> extraSettings) throws IOException {
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
        PostgresServer server;
        try {
            server = new PostgresServer(List.of(extraSettings));
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
            server.close();
            throw e;
        }
    }

    private void initdb() {
        if (ProcessRunner.runningAsRoot()) {
            ProcessRunner.run(List.of("chown", "-R", OS_USER + ":" + OS_USER, baseDir.toString()), 30);
        }
        ProcessRunner.run(ProcessRunner.asUser(OS_USER, List.of(BIN + "initdb", "-D", dataDir.toString(),
                "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--auth-local=trust",
                "--auth-host=scram-sha-256", "--no-sync")), 120);
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
        if (!running) {
            return;
        }
        pgCtlStop("fast");
        running = false;
    }

    /** Immediate shutdown, the nearest to a crash: {@link #start()} runs crash recovery. */
    public synchronized void kill() {
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

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
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
}
