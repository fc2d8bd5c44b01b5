package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The room administration audit trail in the database ({@code mucscaleAdminAudit}, schema version 4): one row per
 * change, appended and never updated, read newest first by its generated key. Texts longer than their column are cut
 * (the path and message columns hold 2000 characters, who 255, the address 64). Thread-safe; pooled connections;
 * each call is one statement on its own connection, so a row is stored once {@link #append} returns.
 */
public final class AdminAuditLog {

    /** One stored change; {@code message} null on success. */
    public record Row(long atMillis, String who, String from, String method, String path, int status,
                      String message) {
    }

    private final DataSource dataSource;

    public AdminAuditLog(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public void append(Row r) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO mucscaleAdminAudit (auditTime, who, fromAddress, method, path, status, message)"
                        + " VALUES (?,?,?,?,?,?,?)")) {
            ps.setLong(1, r.atMillis());
            ps.setString(2, cut(r.who(), 255));
            ps.setString(3, cut(r.from(), 64));
            ps.setString(4, cut(r.method(), 16));
            ps.setString(5, cut(r.path(), 2000));
            ps.setInt(6, r.status());
            if (r.message() == null) {
                ps.setNull(7, Types.VARCHAR);
            } else {
                ps.setString(7, cut(r.message(), 2000));
            }
            ps.executeUpdate();
        }
    }

    /** The newest rows, newest first, at most {@code max}. */
    public List<Row> newest(int max) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT auditTime, who, fromAddress, method, path, status, message FROM mucscaleAdminAudit"
                        + " ORDER BY auditId DESC LIMIT " + Math.max(1, max))) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getInt(6), rs.getString(7)));
                }
            }
        }
        return out;
    }

    private static String cut(String s, int max) {
        String v = s == null ? "" : s;
        return v.length() <= max ? v : v.substring(0, max);
    }
}
