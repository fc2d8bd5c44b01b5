package org.mucscale.engine.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.MucConfig;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.MucScaleSettings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.engine.store.AdminAuditLog;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.SchemaInstaller;
import org.mucscale.engine.store.StandaloneDataSource;

/**
 * The audit trail in the database (HSQLDB on files, as standalone uses by default): a change is a row before its
 * answer, a new API on the same database (a restart) reads it back, and a failing database loses no entry (kept in
 * memory, counted, and the change itself still answered).
 */
class AuditTrailDatabaseTest {
    static final String SECRET = "0123456789abcdef-secret";
    @TempDir
    Path dir;
    HikariDataSource db;
    MucService muc;
    Settings settings;

    @BeforeEach
    void start() throws Exception {
        db = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true", "SA", "",
                2);
        SchemaInstaller.install(db, DatabaseType.HSQLDB);
        settings = Settings.fromText(MucScaleSettings.catalog(), Map.of("mucscale.admin.api-enabled", "true",
                "mucscale.admin.api-secret", SECRET, "mucscale.muc.shard-threads", "2"));
        Delivery out = new Delivery() {
            @Override
            public void deliver(RenderedStanza stanza, Jid recipient) {
            }

            @Override
            public void send(XmlElement stanza) {
            }
        };
        muc = new MucService("muc.example.org", MucConfig.from(settings), out, Clock.SYSTEM);
        muc.start();
    }

    @AfterEach
    void stop() {
        muc.stop();
        db.close();
    }

    AdminApi.Response call(AdminApi api, String method, String pathAndQuery, String body) throws Exception {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        return api.handle(new AdminApi.Request(method, AdminApi.PREFIX + path,
                q < 0 ? null : pathAndQuery.substring(q + 1), SECRET,
                body == null ? null : "application/json", InetAddress.getByName("127.0.0.1"),
                body == null ? null : body.getBytes(StandardCharsets.UTF_8), false, null));
    }

    @Test
    void changes_areRowsBeforeTheirAnswer_andReadBackAfterARestart() throws Exception {
        AdminApi api = new AdminApi(new RoomAdmin(muc), settings, new AdminAuditLog(db));
        assertThat(api.audit().persistent()).isTrue();
        assertThat(call(api, "POST", "/chatrooms", "{\"roomName\":\"audited\",\"owners\":[\"a@example.org\"]}")
                .status()).isEqualTo(201);
        assertThat(rows()).isEqualTo(1); // written before handle() returned
        assertThat(call(api, "DELETE", "/chatrooms/nosuch", null).status()).isEqualTo(404);
        assertThat(call(api, "GET", "/chatrooms", null).status()).as("a read is no change").isEqualTo(200);
        assertThat(rows()).isEqualTo(2);

        AdminApi restarted = new AdminApi(new RoomAdmin(muc), settings, new AdminAuditLog(db));
        List<AuditTrail.Entry> read = restarted.audit().newest(10);
        assertThat(read).extracting(AuditTrail.Entry::status).containsExactly(404, 201);
        assertThat(read.get(0).who()).isEqualTo("shared-secret");
        assertThat(read.get(0).from()).isEqualTo("127.0.0.1");
        assertThat(read.get(0).path()).isEqualTo(AdminApi.PREFIX + "/chatrooms/nosuch");
        assertThat(read.get(0).message()).contains("nosuch");
        assertThat(read.get(1).message()).isNull();
        assertThat(call(restarted, "GET", "/audit?limit=1", null).body()).contains("/chatrooms/nosuch")
                .doesNotContain(SECRET);
    }

    @Test
    void aFailingDatabase_losesNoEntry_andTheChangeIsStillAnswered() throws Exception {
        AdminApi api = new AdminApi(new RoomAdmin(muc), settings, new AdminAuditLog(db));
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE mucscaleAdminAudit");
        }
        assertThat(call(api, "POST", "/chatrooms", "{\"roomName\":\"nodb\",\"owners\":[\"a@example.org\"]}")
                .status()).isEqualTo(201);
        assertThat(api.audit().failedWrites()).isEqualTo(1);
        assertThat(api.audit().newest(10)).as("this node's memory copy").singleElement()
                .satisfies(e -> assertThat(e.path()).endsWith("/chatrooms"));
    }

    private int rows() throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM mucscaleAdminAudit")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
