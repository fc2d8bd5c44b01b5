package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioLoaderTest {

    @Test
    void load_everyBuiltIn_parsesAndValidates() {
        for (String name : ScenarioLoader.BUILT_IN) {
            Scenario s = ScenarioLoader.load(name, List.of());
            assertThat(s.name()).isEqualTo(name);
            assertThat(s.run().deadlineS()).isPositive();
        }
        Scenario ref = ScenarioLoader.load("ref-5000", List.of());
        assertThat(ref.users()).isEqualTo(5000);
        assertThat(ref.rooms().count()).isEqualTo(100);
        assertThat(ref.rooms().zipfExponent()).isEqualTo(0.5);
        assertThat(ref.rooms().largest()).isEqualTo(427);
        assertThat(ScenarioLoader.load("rooms50", List.of()).rooms().size()).isEqualTo(50);
        assertThat(ScenarioLoader.load("joinstorm", List.of()).joinAfterAllConnected()).isTrue();
    }

    @Test
    void overrides_ofEveryType_replaceTheFileValues() {
        Scenario s = ScenarioLoader.load("smoke", List.of("users=40", "rooms.zipfExponent=1.25", "accounts.register=false",
                "server.sasl=PLAIN", "levels.ratesPerSec=5,10.5", "messages.words=foo, bar"));
        assertThat(s.users()).isEqualTo(40);
        assertThat(s.rooms().zipfExponent()).isEqualTo(1.25);
        assertThat(s.accounts().register()).isFalse();
        assertThat(s.server().sasl()).isEqualTo("PLAIN");
        assertThat(s.levels().ratesPerSec()).containsExactly(5.0, 10.5);
        assertThat(s.messages().words()).containsExactly("foo", "bar");
        // untouched keys keep the scenario's values, and the defaults fill what the scenario leaves out
        assertThat(s.rooms().count()).isEqualTo(3);
        assertThat(s.server().mucDomain()).isEqualTo("conference.localhost");
    }

    @Test
    void file_overDefaults_thenOverrides(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("mine.json");
        Files.writeString(f, "{\"name\":\"mine\",\"users\":30,\"rooms\":{\"size\":10},\"levels\":{\"ratesPerSec\":[1,2]}}");
        Scenario s = ScenarioLoader.load(f.toString(), List.of("users=50"));
        assertThat(s.name()).isEqualTo("mine");
        assertThat(s.users()).isEqualTo(50);
        assertThat(RoomPlan.sizes(s.rooms(), s.users())).containsExactly(10, 10, 10, 10, 10);
    }

    @Test
    void badValues_failWithKeyValueAndAllowedRange() {
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("users=lots")))
                .isInstanceOf(ScenarioException.class).hasMessage("key 'users' must be a whole number, was 'lots'");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("users=2.5")))
                .hasMessage("key 'users' must be a whole number, was '2.5'");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("rooms.count=0")))
                .hasMessageContaining("scenario key 'rooms.count' must be 1 to users/2 (10)").hasMessageContaining("was 0");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("server.tls=maybe")))
                .hasMessage("scenario key 'server.tls' must be none, starttls or required, was maybe");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("messages.wordShare=1.5")))
                .hasMessageContaining("'messages.wordShare' must be 0 to 1, was 1.5");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("accounts.register=yes")))
                .hasMessage("key 'accounts.register' must be true or false, was 'yes'");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("levels.ratesPerSec=5,x")))
                .hasMessage("key 'levels.ratesPerSec' must be a list of numbers, was '5,x'");
        assertThatThrownBy(() -> ScenarioLoader.load("ref-5000", List.of("rooms.largest=4900")))
                .hasMessageContaining("'rooms.largest' must be at most users - 2*(count-1) = 4802");
    }

    @Test
    void unknownKeys_failListingTheKnownOnes(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("rooms.cuont=4")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageStartingWith("unknown key 'rooms.cuont' (known keys: rooms.count, rooms.size,");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("rooms=4")))
                .hasMessageStartingWith("key 'rooms' is a group; set one of its keys");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("users")))
                .hasMessageContaining("must look like key=value");
        Path f = dir.resolve("typo.json");
        Files.writeString(f, "{\"server\":{\"prot\":5222}}");
        assertThatThrownBy(() -> ScenarioLoader.load(f.toString(), List.of()))
                .hasMessageStartingWith("unknown key 'server.prot' (known keys: server.host, server.port,");
        Files.writeString(f, "{\"users\":\"many\"}");
        assertThatThrownBy(() -> ScenarioLoader.load(f.toString(), List.of()))
                .hasMessage("key 'users' must be a whole number, was \"many\"");
        Files.writeString(f, "{\"users\": 20,");
        assertThatThrownBy(() -> ScenarioLoader.load(f.toString(), List.of()))
                .hasMessageStartingWith("scenario is not valid JSON");
        assertThatThrownBy(() -> ScenarioLoader.load("no-such-scenario", List.of()))
                .hasMessageContaining("no built-in scenario and no file named 'no-such-scenario' (built-in: smoke, ref-5000");
    }

    @Test
    void commandLine_badUsage_exitsWithCode2AndSaysWhy() {
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        java.io.PrintStream ps = new java.io.PrintStream(buf, true);
        assertThatThrownBy(() -> Main.run(new String[] {"run", "smoke", "--server", "nohostport"}, ps, ps))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--server must be host:port, was 'nohostport'");
        assertThatThrownBy(() -> Main.run(new String[] {"run", "smoke", "--server-pid", "abc"}, ps, ps))
                .hasMessage("--server-pid must be a process id or a comma-separated list of them, was 'abc'");
        assertThatThrownBy(() -> Main.run(new String[] {"frobnicate"}, ps, ps)).hasMessageStartingWith("unknown command 'frobnicate'");
        assertThat(Main.run(new String[] {"show", "smoke", "--set", "users=33"}, ps, ps)).isZero();
        assertThat(buf.toString()).contains("\"users\" : 33");
    }
}
