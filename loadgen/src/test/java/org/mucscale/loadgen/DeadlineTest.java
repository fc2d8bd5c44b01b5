package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every run stops by itself: a server that accepts connections and never answers cannot hold the generator. */
class DeadlineTest {

    @Test
    @Timeout(60)
    void run_serverThatNeverAnswers_stopsAtTheDeadlineAndLeavesNoThreads() throws Exception {
        List<Socket> held = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    for (int i = 0; i < 20; i++) { // bounded: the scenario has 10 users
                        held.add(silent.accept());
                    }
                } catch (IOException e) {
                    // closed at the end of the test
                }
            }, "silent-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            Scenario s = ScenarioLoader.load("smoke", List.of("server.port=" + silent.getLocalPort(), "users=10",
                    "connect.loginTimeoutMs=60000", "run.deadlineS=5"));
            long start = System.nanoTime();
            ObjectNode r = new LoadRun(s, null, "silent", null).run();
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(seconds).isBetween(4.5, 15.0);
            assertThat(r.get("stoppedBy").asText()).isEqualTo("deadline");
            assertThat(r.get("summary").get("loggedIn").asLong()).isZero();
            assertThat(r.get("summary").get("messagesSent").asLong()).isZero();
            Thread.sleep(500);
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.isAlive()
                    && (t.getName().equals("loadgen-timer") || t.getName().startsWith("NioProcessor")));
        } finally {
            for (Socket sock : held) {
                sock.close();
            }
        }
    }
}
