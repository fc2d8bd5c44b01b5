package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.mucscale.engine.config.Setting;
import org.junit.jupiter.api.Test;

class SettingsCatalogTest {

    @Test
    void all_containsAdapterSettingsAndUniqueMucscaleKeys() {
        List<Setting<?>> all = SettingsCatalog.all();

        assertThat(all).contains(OpenfireSettings.SUBDOMAIN);
        Set<String> keys = all.stream().map(Setting::key).collect(Collectors.toSet());
        assertThat(keys).hasSize(all.size());
        assertThat(keys).allSatisfy(k -> assertThat(k).startsWith("mucscale."));
    }

    @Test
    void i18nBundle_everySetting_hasNonEmptySystemPropertyDescription() throws IOException {
        Properties bundle = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/i18n/mucscale_i18n.properties")) {
            assertThat(in).as("i18n/mucscale_i18n.properties on the test class path").isNotNull();
            bundle.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        }
        List<String> missing = new ArrayList<>();
        for (Setting<?> s : SettingsCatalog.openfireProperties()) {
            String text = bundle.getProperty("system_property." + s.key());
            if (text == null || text.isBlank()) {
                // The failure message is the line to add to src/main/i18n/mucscale_i18n.properties.
                missing.add("system_property." + s.key() + "=" + s.description()
                        + (s.dynamic() ? "" : " Takes effect when the plugin is reloaded."));
            }
        }
        assertThat(missing).as("lines missing from src/main/i18n/mucscale_i18n.properties").isEmpty();
    }

    @Test
    void i18nBundle_describesNoSettingThatDoesNotExist() throws IOException {
        Properties bundle = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/i18n/mucscale_i18n.properties")) {
            bundle.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        }
        Set<String> keys = SettingsCatalog.openfireProperties().stream().map(Setting::key).collect(Collectors.toSet());
        List<String> stale = bundle.stringPropertyNames().stream()
                .filter(k -> k.startsWith("system_property."))
                .map(k -> k.substring("system_property.".length()))
                .filter(k -> !keys.contains(k))
                .sorted().toList();
        assertThat(stale).as("descriptions of settings that no longer exist").isEmpty();
    }

    @Test
    void openfireProperties_leaveOutStandaloneOnlySettings() {
        List<String> keys = SettingsCatalog.openfireProperties().stream().map(Setting::key).toList();

        assertThat(keys).contains("mucscale.openfire.subdomain");
        assertThat(keys).noneMatch(k -> k.startsWith("mucscale.store.jdbc-") || k.startsWith("mucscale.metrics.http-"));
        assertThat(SettingsCatalog.all().size()).isGreaterThanOrEqualTo(keys.size());
    }

    @Test
    void subdomainSetting_refusesNonLabels() {
        assertThat(OpenfireSettings.subdomainProblem("mucscale")).isNull();
        assertThat(OpenfireSettings.subdomainProblem("chat-2")).isNull();
        assertThat(OpenfireSettings.subdomainProblem("a.b")).isNotNull();
        assertThat(OpenfireSettings.subdomainProblem("-x")).isNotNull();
        assertThat(OpenfireSettings.subdomainProblem("")).isNotNull();
        assertThat(OpenfireSettings.subdomainProblem("Upper")).isNotNull();
    }
}
