package org.mucscale.engine.filter;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Room rules in a properties file, one numbered group per rule:
 *
 * <pre>
 * room.1.pattern=*&#64;kids.example.org
 * room.1.action=REJECT
 * room.1.languages=en,de
 * room.1.min-severity=LOW
 * room.1.reject-message=Please keep it clean.
 * room.1.enabled=true
 * room.1.term.1=cheater
 * room.1.term.2=noob*
 * </pre>
 *
 * The {@code term.N} keys (a room's own terms, numbered from 1) are optional: files written before they existed read
 * as rules without terms.
 * Saved by writing a temporary file and renaming it over the old one, so a crash never leaves half a file.
 */
public final class FilePolicyStore implements PolicyStore {

    private final Path file;

    public FilePolicyStore(Path file) {
        this.file = file;
    }

    public Path file() {
        return file;
    }

    @Override
    public List<RoomRule> load() throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        List<RoomRule> rules = new ArrayList<>();
        for (int i = 1; p.containsKey("room." + i + ".pattern"); i++) {
            String k = "room." + i + ".";
            try {
                String action = p.getProperty(k + "action", "").strip();
                String severity = p.getProperty(k + "min-severity", "").strip();
                Set<String> languages = new LinkedHashSet<>();
                for (String l : p.getProperty(k + "languages", "").split(",")) {
                    if (!l.isBlank()) {
                        languages.add(l.strip());
                    }
                }
                List<String> terms = new ArrayList<>();
                for (int t = 1; p.containsKey(k + "term." + t); t++) {
                    terms.add(p.getProperty(k + "term." + t));
                }
                rules.add(new RoomRule(p.getProperty(k + "pattern"),
                        !"false".equalsIgnoreCase(p.getProperty(k + "enabled", "true").strip()),
                        action.isEmpty() ? null : Action.valueOf(action.toUpperCase(Locale.ROOT)),
                        languages,
                        severity.isEmpty() ? null : Severity.valueOf(severity.toUpperCase(Locale.ROOT)),
                        p.getProperty(k + "reject-message"), terms));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": room." + i + " is invalid: " + e.getMessage(), e);
            }
        }
        return rules;
    }

    @Override
    public void save(List<RoomRule> rules) throws IOException {
        Properties p = new Properties();
        int i = 1;
        for (RoomRule r : rules) {
            String k = "room." + i++ + ".";
            p.setProperty(k + "pattern", r.pattern());
            p.setProperty(k + "enabled", Boolean.toString(r.enabled()));
            if (r.action() != null) {
                p.setProperty(k + "action", r.action().name());
            }
            if (!r.languages().isEmpty()) {
                p.setProperty(k + "languages", String.join(",", r.languages()));
            }
            if (r.minSeverity() != null) {
                p.setProperty(k + "min-severity", r.minSeverity().name());
            }
            if (r.rejectMessage() != null) {
                p.setProperty(k + "reject-message", r.rejectMessage());
            }
            int t = 1;
            for (String term : r.terms()) {
                p.setProperty(k + "term." + t++, term);
            }
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(w, "mucscale content filter: per-room policies (first matching pattern wins)");
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
