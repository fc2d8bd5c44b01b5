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
    void refVariants_sameLoadAsRef5000_differOnlyInTheirClientProfile() {
        Scenario ref = ScenarioLoader.load("ref-5000", List.of());
        for (String name : List.of("ref-5000-sm", "ref-5000-csi", "ref-5000-ws", "ref-5000-tls", "ref-5000-modern-mix")) {
            Scenario v = ScenarioLoader.load(name, List.of());
            assertThat(v.users()).as(name).isEqualTo(ref.users());
            assertThat(v.rooms()).as(name).isEqualTo(ref.rooms());
            assertThat(v.levels()).as(name).isEqualTo(ref.levels());
            assertThat(v.connect()).as(name).isEqualTo(ref.connect());
            assertThat(v.messages()).as(name).isEqualTo(ref.messages());
        }
        assertThat(ScenarioLoader.load("ref-5000-sm", List.of()).clients().streamManagement()).isEqualTo("on");
        assertThat(ScenarioLoader.load("ref-5000-csi", List.of()).clients().csiShare()).isEqualTo(0.2);
        assertThat(ScenarioLoader.load("ref-5000-ws", List.of()).clients().websocketShare()).isEqualTo(1.0);
        assertThat(ScenarioLoader.load("ref-5000-tls", List.of()).server().tls()).isEqualTo("required");
        Scenario.Clients mix = ScenarioLoader.load("ref-5000-modern-mix", List.of()).clients();
        assertThat(mix.streamManagement()).isEqualTo("resume");
        assertThat(mix.streamManagementShare()).isEqualTo(0.8);
        assertThat(mix.csiShare()).isEqualTo(0.2);
        assertThat(mix.websocketShare()).isEqualTo(0.25);
        assertThat(ScenarioLoader.load("ref-5000", List.of()).clients().smOn()).isFalse();
    }

    @Test
    void clients_inconsistentOptions_refusedWithTheKey() {
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("clients.resumeCuts=3")))
                .hasMessageContaining("clients.resumeCuts").hasMessageContaining("unless clients.streamManagement is resume");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("clients.streamManagement=resume",
                "clients.resumeCuts=3", "clients.resumeLevel=3")))
                .hasMessageContaining("clients.resumeLevel").hasMessageContaining("1 to 2");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("clients.streamManagement=always")))
                .hasMessageContaining("off, on or resume");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("clients.websocketPath=ws")))
                .hasMessageContaining("clients.websocketPath");
        assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("clients.csiShare=1.5")))
                .hasMessageContaining("clients.csiShare");
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
