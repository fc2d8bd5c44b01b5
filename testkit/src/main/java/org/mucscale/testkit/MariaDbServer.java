package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway MariaDB server from the installed Debian binaries ({@code /usr/sbin/mariadbd},
 * {@code mariadb-install-db}): its own data directory under a temp folder, a free loopback port, a utf8mb4 database
 * and a real (password) user. {@link #stop()} and {@link #start()} keep the data directory and the port, so a test
 * can take the database away and bring it back; {@link #close()} stops it and deletes everything.
 *
 * <pre>{@code
 * try (MariaDbServer db = MariaDbServer.startNew()) {
 *     DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
 * }
 * }</pre>
 *
 * Durability is relaxed for speed ({@code innodb_flush_log_at_trx_commit=2}, no binlog): a server stop loses
 * nothing, an OS crash might, which no test here causes.
 */
public final class MariaDbServer implements AutoCloseable {
    private static final String MARIADBD = "/usr/sbin/mariadbd";
    private static final String INSTALL_DB = "/usr/bin/mariadb-install-db";
    private static final String CLIENT = "/usr/bin/mariadb";
    private static final long START_TIMEOUT_SECONDS = 60;

    private final Path baseDir;
    private final Path dataDir;
    private final Path socket;
    private final Path errorLog;
    private final int port;
    private final List<String> extraOptions;
    private final Thread shutdownHook;
    private Process process;
    private boolean closed;

    private MariaDbServer(List<String> extraOptions) throws IOException {
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
        MariaDbServer server;
        try {
            server = new MariaDbServer(List.of(extraMariadbdOptions));
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
            server.close();
            throw e;
        }
    }

    private void install() {
        List<String> cmd = new ArrayList<>(List.of(INSTALL_DB, "--no-defaults", "--datadir=" + dataDir,
                "--auth-root-authentication-method=socket", "--skip-test-db", "--skip-name-resolve"));
        if (ProcessRunner.runningAsRoot()) {
            cmd.add("--user=root");
        }
        ProcessRunner.run(cmd, 120);
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

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop();
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
}
