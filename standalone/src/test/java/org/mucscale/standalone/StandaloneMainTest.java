package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.testkit.FreePort;
import org.mucscale.testkit.ProsodyServer;

/**
 * The runnable {@link Main} as a real child process (same classpath as the shaded jar's content): exit codes and the
 * one-line startup errors an operator reads, and a clean stop on SIGTERM that tells occupants (status 332).
 */
class StandaloneMainTest {
    private static ProsodyServer prosody;

    @TempDir
    Path dir;

    @BeforeAll
    static void startProsody() {
        prosody = ProsodyServer.builder().domain("example.test").externalComponent("muc", "right")
                .user("alice", "pw").start();
    }

    @AfterAll
    static void stopProsody() {
        prosody.close();
    }

    private Path config(String... lines) throws IOException {
        Path f = dir.resolve("mucscale.properties");
        Files.write(f, List.of(lines), StandardCharsets.UTF_8);
        return f;
    }

    private Process launch(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).directory(dir.toFile()).start();
    }

    private record Outcome(int exit, String out, String err) {
    }

    private Outcome run(String... args) throws Exception {
        Process p = launch(args);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("Main did not exit");
        }
        return new Outcome(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void main_badValuesAndUnknownKey_exit2NamingKeyValueAndRule() throws Exception {
        Path f = config("mucscale.standalone.server-port=70000", "mucscale.standalone.sever-host=x",
                "mucscale.muc.history-size=-1", "mucscale.standalone.component-secret=s");
        Outcome o = run("--config", f.toString());
        assertThat(o.exit()).isEqualTo(Main.EXIT_BAD_CONFIG);
        assertThat(o.err())
                .contains("mucscale.standalone.server-port must be a whole number between 1 and 65535, was 70000")
                .contains("mucscale.standalone.sever-host is not a known setting")
                .contains("mucscale.muc.history-size must be a whole number between");
    }

    @Test
    void main_noSecret_exit2NamingTheKey() throws Exception {
        Path f = config("mucscale.standalone.server-port=" + prosody.componentPort());
        Outcome o = run("--config", f.toString());
        assertThat(o.exit()).isEqualTo(Main.EXIT_BAD_CONFIG);
        assertThat(o.err()).contains("mucscale.standalone.component-secret must be set");
    }

    @Test
    void main_missingFileOrOption_exit2() throws Exception {
        assertThat(run("--config", dir.resolve("nope.properties").toString()).err())
                .contains("cannot read config file");
        Outcome o = run();
        assertThat(o.exit()).isEqualTo(Main.EXIT_BAD_CONFIG);
        assertThat(o.err()).contains("--config FILE is required");
    }

    @Test
    void main_wrongSecret_exit1RefusedSecret() throws Exception {
        Path f = config("mucscale.standalone.server-port=" + prosody.componentPort(),
                "mucscale.standalone.component-domain=muc.example.test", "mucscale.standalone.component-secret=wrong",
                "mucscale.store.jdbc-url=jdbc:hsqldb:mem:m", "mucscale.metrics.http-port=0");
        Outcome o = run("--config", f.toString());
        assertThat(o.exit()).isEqualTo(Main.EXIT_STARTUP_FAILED);
        assertThat(o.err()).contains("mucscale: the server refused the component secret for muc.example.test");
    }

    @Test
    void main_nothingListening_exit1CannotConnect() throws Exception {
        int port = FreePort.next();
        Path f = config("mucscale.standalone.server-port=" + port, "mucscale.standalone.component-secret=x",
                "mucscale.store.jdbc-url=jdbc:hsqldb:mem:m", "mucscale.metrics.http-port=0");
        Outcome o = run("--config", f.toString());
        assertThat(o.exit()).isEqualTo(Main.EXIT_STARTUP_FAILED);
        assertThat(o.err()).contains("mucscale: cannot connect to 127.0.0.1:" + port + ": ");
    }

    @Test
    void main_printSettings_listsEveryKeyWithDefault() throws Exception {
        Outcome o = run("--print-settings");
        assertThat(o.exit()).isZero();
        for (Setting<?> s : StandaloneServer.catalog()) {
            assertThat(o.out()).contains(s.key() + "=");
        }
    }

    @Test
    void main_running_servesRooms_thenSigtermTellsOccupantsAndExits() throws Exception {
        Path f = config("mucscale.standalone.server-port=" + prosody.componentPort(),
                "mucscale.standalone.component-domain=muc.example.test", "mucscale.standalone.component-secret=right",
                "mucscale.store.jdbc-url=jdbc:hsqldb:mem:m", "mucscale.metrics.http-port=0");
        Process p = launch("--config", f.toString());
        try (RawXmppClient alice = RawXmppClient.login(prosody.c2sPort(), "example.test", "alice", "pw", "a")) {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).as("first line on stdout").contains("mucscale: running as muc.example.test");
            alice.write("<presence to='stop@muc.example.test/alice'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            alice.expect(e -> e.name().equals("presence") && "stop@muc.example.test/alice".equals(e.attribute("from")),
                    "self presence");
            p.destroy(); // SIGTERM
            XmlElement gone = alice.expect(e -> e.name().equals("presence") && "unavailable".equals(e.attribute("type"))
                    && "stop@muc.example.test/alice".equals(e.attribute("from")), "shutdown presence",
                    Duration.ofSeconds(20));
            XmlElement x = gone.child("x", "http://jabber.org/protocol/muc#user");
            assertThat(x.elements("status")).extracting(s -> s.attribute("code")).contains("332");
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        } finally {
            p.destroyForcibly();
        }
    }
}
