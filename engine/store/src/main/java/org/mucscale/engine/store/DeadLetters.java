package org.mucscale.engine.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Base64;
import javax.sql.DataSource;
import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks a record the database refused (once isolated from its batch): in {@code mucscaleDeadLetter}, or, when that
 * insert fails too, as a line in {@code dead-letters.log} in the spill directory; failing that, the whole record is
 * logged at ERROR. Each park is logged with the reason. Used by the writer lanes, possibly at once: the file append is
 * synchronized so two parked lines never interleave.
 */
final class DeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
    private final DataSource dataSource;
    private final Path file;
    private final Clock clock;

    DeadLetters(DataSource dataSource, Path spillDirectory, Clock clock) {
        this.dataSource = dataSource;
        this.file = spillDirectory.resolve("dead-letters.log");
        this.clock = clock;
    }

    Path file() {
        return file;
    }

    void park(RoomLogRecord r, String reason) {
        String encoded = Base64.getEncoder().encodeToString(RecordCodec.frame(r));
        long now = clock.currentTimeMillis();
        LOG.warn("mucscale store: message {} of room {} cannot be stored and is parked as a dead letter: {}",
                ascii(r.stanzaId(), 255), ascii(r.roomJid(), 255), reason);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO mucscaleDeadLetter"
                     + " (stanzaId, roomJid, logTime, parkedAt, reason, record) VALUES (?,?,?,?,?,?)")) {
            c.setAutoCommit(true);
            ps.setString(1, ascii(r.stanzaId(), 255));
            ps.setString(2, ascii(r.roomJid(), 255));
            ps.setLong(3, r.logTimeMillis());
            ps.setLong(4, now);
            ps.setString(5, ascii(reason, 2000));
            ps.setString(6, encoded);
            ps.executeUpdate();
            return;
        } catch (SQLException e) {
            LOG.warn("mucscale store: dead-letter table refused message {} too ({}); writing it to {}",
                    ascii(r.stanzaId(), 255), e.getMessage(), file);
        }
        String line = now + "\t" + ascii(reason, 2000).replace('\t', ' ').replace('\n', ' ') + "\t" + encoded + "\n";
        appendLine(line, encoded);
    }

    private synchronized void appendLine(String line, String encoded) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardCharsets.US_ASCII, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            LOG.error("mucscale store: could not write dead letter to {} ({}); record (base64 spill frame): {}",
                    file, e, encoded);
        }
    }

    /** ASCII-only, bounded form for columns and log lines: anything else becomes \\uXXXX. */
    static String ascii(String s, int max) {
        if (s == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max));
        for (int i = 0; i < s.length() && sb.length() < max; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.length() > max ? sb.substring(0, max) : sb.toString();
    }
}
