package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A server made of several processes (Prosody + the mucscale component): CPU and RSS summed over real processes. */
class ServerProcessesTest {

    @Test
    void serverPidOption_repeatedAndCommaList_collectsEveryPidInOrder() {
        Main.Parsed p = Main.parse(new String[] {"run", "smoke", "--server-pid", "12,34", "--server-pid", "56"});
        assertThat(p.serverPids).containsExactly(12L, 34L, 56L);
        assertThat(Main.parse(new String[] {"run", "smoke"}).serverPids).isEmpty();
    }

    @Test
    void serverPidOption_badElement_failsNamingTheValue() {
        assertThatThrownBy(() -> Main.parse(new String[] {"run", "smoke", "--server-pid", "12,abc"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--server-pid must be a process id or a comma-separated list of them, was '12,abc'");
        assertThatThrownBy(() -> ServerProcesses.parse("12,,34")).hasMessageContaining("was '12,,34'");
        assertThatThrownBy(() -> ServerProcesses.parse("-5")).hasMessageContaining("was '-5'");
        PrintStream ps = new PrintStream(new ByteArrayOutputStream(), true);
        assertThatThrownBy(() -> Main.run(new String[] {"run", "smoke", "--server-pid", "0"}, ps, ps))
                .hasMessageContaining("was '0'");
    }

    @Test
    void cpuAndRss_twoRealProcesses_areSummed() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            long self = ProcessHandle.current().pid();
            long sleeperPid = sleeper.pid();
            waitForRss(sleeperPid);
            ServerProcesses both = ServerProcesses.of(List.of(self, sleeperPid));
            long sleeperCpu = ProcStat.cpuNs(sleeperPid);
            long selfBefore = ProcStat.cpuNs(self);
            long sum = both.cpuNs();
            long selfAfter = ProcStat.cpuNs(self);
            assertThat(sleeperCpu).isGreaterThanOrEqualTo(0);
            assertThat(sum).isBetween(selfBefore + sleeperCpu, selfAfter + sleeperCpu);

            // the same process twice counts twice: proves a sum, not a max or the first pid only
            long sleeperRss = ProcStat.rssKb(Long.toString(sleeperPid));
            assertThat(sleeperRss).isPositive();
            assertThat(ServerProcesses.of(List.of(sleeperPid, sleeperPid)).rssKb()).isEqualTo(2 * sleeperRss);
            long rssSum = both.rssKb();
            assertThat(rssSum).isGreaterThan(sleeperRss);
            assertThat(both.count()).isEqualTo(2);
            assertThat(both.pid(1)).isEqualTo(sleeperPid);
        } finally {
            sleeper.destroy();
            sleeper.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void cpuAndRss_oneProcessGone_reportMinusOneNotAPartialSum() throws Exception {
        Process shortLived = new ProcessBuilder("true").start();
        long gonePid = shortLived.pid();
        assertThat(shortLived.waitFor(10, TimeUnit.SECONDS)).isTrue();
        ServerProcesses procs = ServerProcesses.of(List.of(ProcessHandle.current().pid(), gonePid));
        assertThat(procs.cpuNs()).isEqualTo(-1);
        assertThat(procs.rssKb()).isEqualTo(-1);
        ServerProcesses none = ServerProcesses.of(null);
        assertThat(none.none()).isTrue();
        assertThat(none.cpuNs()).isEqualTo(-1);
        assertThat(none.rssKb()).isEqualTo(-1);
    }

    /**
     * Waits until the child has exec'd {@code sleep} and is asleep: between fork and exec its RSS and CPU still change
     * (a CI run read 16 kB, then 1,824 kB), and the sums below compare reads taken moments apart.
     */
    private static void waitForRss(long pid) throws Exception {
        Path comm = Path.of("/proc", Long.toString(pid), "comm");
        for (int i = 0; i < 250; i++) {
            if (Files.exists(comm) && Files.readString(comm).strip().equals("sleep")
                    && ProcStat.rssKb(Long.toString(pid)) > 0) {
                Thread.sleep(50); // past the exec's last page faults
                return;
            }
            Thread.sleep(20);
        }
    }
}
