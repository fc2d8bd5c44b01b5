package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.testkit.FreePort;

/**
 * STARTTLS on real loopback sockets: the server requires it (a self-signed certificate made with the JDK's keytool),
 * the generator upgrades every connection before authenticating and the run completes without loss. The test Prosody
 * runs without TLS, so this uses {@link FakeMucServer}'s STARTTLS.
 */
class StartTlsTest {

    @Test
    @Timeout(90)
    void tlsRequired_serverOffersStartTls_everyClientUpgradesAndNothingIsLost(@TempDir Path dir) throws Exception {
        FakeMucServer server = new FakeMucServer();
        server.tls = selfSignedContext(dir);
        int port = FreePort.next();
        server.start(port);
        try {
            Scenario s = ScenarioLoader.load("smoke", List.of("server.port=" + port, "server.tls=required", "server.sasl=PLAIN",
                    "users=6", "rooms.count=2", "levels.ratesPerSec=20", "levels.warmupS=0", "levels.durationS=2",
                    "soak.durationS=0", "rampDown.drainMs=2000", "run.deadlineS=60"));
            JsonNode sum = new LoadRun(s, null, "starttls", null).run().get("summary");
            assertThat(sum.get("loggedIn").asLong()).isEqualTo(6);
            assertThat(sum.get("joined").asLong()).isEqualTo(6);
            assertThat(sum.get("errors").asLong()).isZero();
            assertThat(sum.get("messagesSent").asLong()).isPositive();
            assertThat(sum.get("lost").asLong()).isZero();
        } finally {
            server.stop();
        }
    }

    @Test
    @Timeout(60)
    void tlsRequired_serverWithoutStartTls_failsEveryLoginWithTheReason() throws Exception {
        FakeMucServer server = new FakeMucServer();
        int port = FreePort.next();
        server.start(port);
        try {
            Scenario s = ScenarioLoader.load("smoke", List.of("server.port=" + port, "server.tls=required", "server.sasl=PLAIN",
                    "users=4", "rooms.count=1", "levels.ratesPerSec=20", "levels.durationS=1", "soak.durationS=0",
                    "run.deadlineS=30"));
            var r = new LoadRun(s, null, "no-tls", null).run();
            assertThat(r.get("summary").get("loginFailed").asLong()).isEqualTo(4);
            assertThat(r.get("errors").get("starttls-not-offered").asLong()).isEqualTo(4);
        } finally {
            server.stop();
        }
    }

    static SSLContext selfSignedContext(Path dir) throws Exception {
        Path ks = dir.resolve("fake.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "fake", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as(out).isTrue();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }
}
