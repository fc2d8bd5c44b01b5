package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The Openfire plugin database scripts in database/: complete, consistent, in Openfire's format. */
class SchemaScriptsTest {
    private static final Path DATABASE = Path.of("../../database");
    private static final List<String> TYPES = List.of("mysql", "mariadb", "postgresql", "hsqldb");

    @Test
    void installScripts_everyType_existsAndEndsWithItsVersionRow() throws IOException {
        for (String type : TYPES) {
            Path script = DATABASE.resolve("mucscale_" + type + ".sql");
            assertThat(script).exists();
            List<String> statements = SchemaInstaller.statements(Files.readString(script));
            assertThat(statements.get(statements.size() - 1)).as(type)
                    .isEqualTo("INSERT INTO ofVersion (name, version) VALUES ('mucscale', "
                            + SchemaInstaller.LATEST_VERSION + ")");
        }
    }

    @Test
    void installScripts_allTypes_createTheSameTablesAndIndexes() throws IOException {
        TreeSet<String> reference = null;
        for (String type : TYPES) {
            TreeSet<String> objects = new TreeSet<>();
            for (String sql : SchemaInstaller.statements(Files.readString(DATABASE.resolve("mucscale_" + type + ".sql")))) {
                String s = sql.toLowerCase(Locale.ROOT);
                if (s.startsWith("create table ")) {
                    objects.add("table " + s.substring(13, s.indexOf(' ', 13)).trim());
                }
                // indexes: MySQL declares them inside CREATE TABLE, the others with CREATE INDEX
                for (String word : new String[] {"create index ", "index ", "unique key ", "constraint "}) {
                    int at = 0;
                    while ((at = s.indexOf(word, at)) >= 0) {
                        int start = at + word.length();
                        int end = s.indexOf(' ', start);
                        String name = s.substring(start, end);
                        if (name.contains("_") && !name.endsWith("_pk")) {
                            objects.add("index " + name);
                        }
                        at = end;
                    }
                }
            }
            if (reference == null) {
                reference = objects;
                assertThat(objects).contains("table mucscaleroomlog", "table mucscaledeadletter", "table mucscaleroom",
                        "table mucscaleroomconfig", "table mucscaleaffiliation", "index mucscaledeadletter_parkedat",
                        "table mucscalereview", "index mucscalereview_logtime")
                        .as("besides its primary key, the room log has only the (roomJid, stanzaId) index (version 3)")
                        .filteredOn(o -> o.startsWith("index mucscaleroomlog")).containsExactly("index mucscaleroomlog_room_id");
            } else {
                assertThat(objects).as(type + " vs mysql").isEqualTo(reference);
            }
        }
    }

    @Test
    void installScripts_roomLog_isKeyedByRoomTimeAndStanzaIdWithoutLogId() throws IOException {
        for (String type : TYPES) {
            String roomLog = SchemaInstaller.statements(Files.readString(DATABASE.resolve("mucscale_" + type + ".sql")))
                    .stream().filter(s -> s.startsWith("CREATE TABLE mucscaleRoomLog ")).findFirst().orElseThrow();
            assertThat(roomLog).as(type).contains("PRIMARY KEY (roomJid, logTime, stanzaId)")
                    .doesNotContainIgnoringCase("logId").doesNotContainIgnoringCase("unique")
                    .doesNotContainIgnoringCase("index");
        }
    }

    @Test
    void upgradeFolders_everyVersion_hasAScriptForEveryTypeSettingItsVersion() throws IOException {
        Path upgrades = DATABASE.resolve("upgrade");
        List<Path> versions = new ArrayList<>();
        if (Files.isDirectory(upgrades)) {
            try (Stream<Path> s = Files.list(upgrades)) {
                s.filter(Files::isDirectory).forEach(versions::add);
            }
        }
        for (Path v : versions) {
            int n = Integer.parseInt(v.getFileName().toString());
            assertThat(n).isBetween(2, SchemaInstaller.LATEST_VERSION);
            for (String type : TYPES) {
                Path script = v.resolve("mucscale_" + type + ".sql");
                assertThat(script).as("upgrade " + n + " for " + type).exists();
                List<String> statements = SchemaInstaller.statements(Files.readString(script));
                assertThat(statements.get(statements.size() - 1))
                        .isEqualTo("UPDATE ofVersion SET version = " + n + " WHERE name = 'mucscale'");
            }
        }
        // Every version above 1 needs its upgrade folder.
        assertThat(versions).hasSize(SchemaInstaller.LATEST_VERSION - 1);
    }

    @Test
    void scripts_everyStatement_endsWithSemicolonAtEndOfLine() throws IOException {
        try (Stream<Path> s = Files.walk(DATABASE)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".sql")).toList()) {
                // statements() refuses a script whose last statement lacks its ';'
                assertThat(SchemaInstaller.statements(Files.readString(f))).as(f.toString()).isNotEmpty();
                for (String line : Files.readAllLines(f)) {
                    if (line.strip().startsWith("--")) {
                        continue;
                    }
                    assertThat(line).as(f + ": one statement per ';' at end of line, no ';' inside a line")
                            .satisfiesAnyOf(l -> assertThat(l.indexOf(';')).isEqualTo(-1),
                                    l -> assertThat(l.indexOf(';')).isEqualTo(l.stripTrailing().length() - 1));
                }
            }
        }
    }

    @Test
    void statements_scriptWithoutFinalSemicolon_isRefused() {
        assertThatThrownBy(() -> SchemaInstaller.statements("CREATE TABLE x (a INT);\nCREATE TABLE y (b INT)\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without ';'");
    }

    @Test
    void databaseType_unsupportedOpenfireType_isRefusedWithTheSupportedList() {
        assertThat(DatabaseType.fromOpenfireName("postgresql")).isEqualTo(DatabaseType.POSTGRESQL);
        assertThatThrownBy(() -> DatabaseType.fromOpenfireName("oracle"))
                .hasMessageContaining("mysql, mariadb, postgresql and hsqldb").hasMessageContaining("oracle");
    }
}
