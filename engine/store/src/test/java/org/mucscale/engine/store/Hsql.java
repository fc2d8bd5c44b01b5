package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import org.hsqldb.server.Server;
import org.mucscale.testkit.FreePort;

/** HSQLDB for tests: an in-process file database, or an HSQLDB network server that can be stopped and restarted. */
final class Hsql implements AutoCloseable {
    private final Path dir;
    private final int port;
    private Server server;
    final HikariDataSource dataSource;

    private Hsql(Path dir, boolean networked) {
        this.dir = dir;
        this.port = networked ? FreePort.next() : -1;
        if (networked) {
            startServer();
            dataSource = StandaloneDataSource.create("jdbc:hsqldb:hsql://127.0.0.1:" + port + "/mucscale", "SA", "", 4);
        } else {
            dataSource = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("db/mucscale")
                    + ";shutdown=true;hsqldb.tx=mvcc", "SA", "", 4);
        }
    }

    static Hsql embedded(Path dir) {
        return new Hsql(dir, false);
    }

    static Hsql networked(Path dir) {
        return new Hsql(dir, true);
    }

    synchronized void startServer() {
        Server s = new Server();
        s.setAddress("127.0.0.1");
        s.setPort(port);
        s.setDatabaseName(0, "mucscale");
        s.setDatabasePath(0, "file:" + dir.resolve("srv/mucscale") + ";hsqldb.tx=mvcc");
        s.setSilent(true);
        s.setNoSystemExit(true);
        s.setLogWriter(null);
        s.setErrWriter(null);
        s.start();
        server = s;
    }

    synchronized void stopServer() {
        if (server != null) {
            server.shutdownCatalogs(org.hsqldb.Database.CLOSEMODE_NORMAL);
            server.stop();
            server = null;
        }
    }

    @Override
    public void close() {
        dataSource.close();
        stopServer();
    }
}
