package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.TestAbortedException;

/**
 * Guards issue 39's "every skip reported": runs every {@code RealOpenfire*IT} of this package without an Openfire (the
 * system properties that name one are cleared while it runs) and checks that each of its test methods is reported as
 * skipped, with the reason. An assumption that fails in a {@code @BeforeAll} aborts the class before any test starts,
 * and Surefire/Failsafe then print "Tests run: 0, Skipped: 0" for it: that is the regression this test catches. It
 * runs the classes through the JUnit Platform launcher, the same events Surefire and Failsafe count from.
 */
class RealOpenfireSkipReportTest {
    private static final List<String> OPENFIRE_PROPERTIES = List.of("openfire.home", "openfire.hazelcast.plugin");

    @Test
    void realOpenfireTests_withoutOpenfire_reportEveryTestSkippedWithItsReason() {
        Map<String, String> saved = new LinkedHashMap<>();
        for (String p : OPENFIRE_PROPERTIES) {
            saved.put(p, System.getProperty(p));
            System.clearProperty(p);
        }
        Recorder recorder = new Recorder();
        TestPlan plan;
        try {
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectPackage(getClass().getPackageName()))
                    .filters(includeClassNamePatterns(".*\\.RealOpenfire[A-Za-z]*IT"))
                    .build();
            Launcher launcher = LauncherFactory.create();
            plan = launcher.discover(request);
            launcher.execute(plan, recorder);
        } finally {
            saved.forEach((p, v) -> {
                if (v != null) {
                    System.setProperty(p, v);
                }
            });
        }

        Set<String> classes = new TreeSet<>();
        Set<String> tests = new TreeSet<>();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier id : plan.getDescendants(root)) {
                if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
                    classes.add(m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1));
                    tests.add(id.getUniqueId());
                }
            }
        }
        assertThat(classes).as("real-Openfire test classes found").contains("RealOpenfireIT", "RealOpenfireClusterIT");
        assertThat(recorder.reasons.keySet()).as("tests reported as skipped (every test of those classes)")
                .containsExactlyInAnyOrderElementsOf(tests);
        assertThat(recorder.reasons.values()).as("skip reasons").allSatisfy(r -> assertThat(r).contains("skipped"));
        assertThat(recorder.notSkipped).as("tests that ran, failed or were aborted for another reason").isEmpty();
    }

    /** The skip reason of each test (by unique id), and anything that did not end as a skip. */
    private static final class Recorder implements TestExecutionListener {
        final Map<String, String> reasons = new ConcurrentHashMap<>();
        final Map<String, String> notSkipped = new ConcurrentHashMap<>();

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) {
                reasons.put(id.getUniqueId(), reason);
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            Throwable t = result.getThrowable().orElse(null);
            if (result.getStatus() == TestExecutionResult.Status.ABORTED && t instanceof TestAbortedException && id.isTest()) {
                reasons.put(id.getUniqueId(), String.valueOf(t.getMessage()));
            } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                notSkipped.put(id.getDisplayName(), result.getStatus() + ": " + t);
            } else if (id.isTest()) {
                notSkipped.put(id.getDisplayName(), "ran and passed without an Openfire");
            }
        }
    }
}
