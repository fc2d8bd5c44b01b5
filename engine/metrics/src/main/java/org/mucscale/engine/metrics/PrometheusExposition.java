package org.mucscale.engine.metrics;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.dropwizard.DropwizardExports;
import io.prometheus.client.dropwizard.samplebuilder.CustomMappingSampleBuilder;
import io.prometheus.client.dropwizard.samplebuilder.MapperConfig;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The Prometheus view of the metrics registry: every Dropwizard metric with dots as underscores, the filter's
 * list/action counters and the queue depths as one family each with labels ({@code mucscale_filter_actions{list,
 * action}}, {@code mucscale_queue_depth{queue}}), and the cluster's members as {@code mucscale_cluster_member{node,
 * local}}, written in the text format 0.0.4.
 *
 * <p>Threads: {@code clusterMembers} is volatile, set by the host's wiring thread; scrapes run on any HTTP thread and
 * read the registry, which is thread-safe.
 */
final class PrometheusExposition {
    static final String CONTENT_TYPE = TextFormat.CONTENT_TYPE_004;

    private final CollectorRegistry collectors = new CollectorRegistry();
    private volatile ClusterMembers clusterMembers;

    private record ClusterMembers(String local, Supplier<List<String>> members) {
    }

    PrometheusExposition(MetricRegistry registry) {
    // Labels in a fixed order (Map.of would vary it from run to run).
    Map<String, String> filterLabels = new java.util.LinkedHashMap<>();
    filterLabels.put("list", "${0}");
    filterLabels.put("action", "${1}");
    new DropwizardExports(registry, new CustomMappingSampleBuilder(List.of(
            new MapperConfig("mucscale.filter.actions.*.*", "mucscale_filter_actions", filterLabels),
            new MapperConfig("mucscale.queue.*.depth", "mucscale_queue_depth", Map.of("queue", "${0}")))))
            .register(collectors);
    new Collector() {
        @Override
        public List<MetricFamilySamples> collect() {
            GaugeMetricFamily family = new GaugeMetricFamily("mucscale_cluster_member",
                    "Members of the cluster as this node sees them (1 each); local=true is this node",
                    List.of("node", "local"));
            ClusterMembers m = clusterMembers;
            if (m != null) {
                List<String> members;
                try {
                    members = m.members().get();
                } catch (RuntimeException e) {
                    members = List.of(); // a failing view leaves the family empty, not the scrape broken
                }
                for (String node : members) {
                    family.addMetric(List.of(node, Boolean.toString(node.equals(m.local()))), 1);
                }
            }
            return List.of(family);
        }
    }.register(collectors);
    }

    /** See {@link MucScaleMetrics#clusterMembers}. */
    void clusterMembers(String localNode, Supplier<List<String>> members) {
        this.clusterMembers = new ClusterMembers(localNode, members);
    }

    void write(Writer out) throws IOException {
        TextFormat.write004(out, collectors.metricFamilySamples());
    }
}
