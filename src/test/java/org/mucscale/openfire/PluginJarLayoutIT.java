package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** Checks the built target/mucscale.jar against Openfire's plugin layout (runs after package, in verify). */
class PluginJarLayoutIT {

    /** Jar name prefixes of libraries Openfire 5.1 ships (or that must never be bundled into it). */
    static final List<String> FORBIDDEN_JARS = List.of("xmppserver", "tinder", "slf4j", "log4j", "dom4j", "jaxen",
            "jetty", "netty", "guava", "caffeine", "hsqldb", "postgresql", "mysql", "mariadb", "commons-dbcp2",
            "commons-pool2", "javax.servlet", "hazelcast", "mina-core", "mucscale-openfire-api");

    /** Packages of Openfire and the libraries it ships: none may be inside any bundled jar. */
    static final List<String> FORBIDDEN_PACKAGES = List.of("org/jivesoftware/", "org/xmpp/", "org/dom4j/",
            "org/slf4j/", "org/eclipse/jetty/", "io/netty/", "com/google/common/", "javax/servlet/",
            "org/hsqldb/", "org/apache/logging/log4j/");

    static Path jar;

    @BeforeAll
    static void locate() {
        jar = Path.of(System.getProperty("mucscale.plugin.jar", "target/mucscale.jar"));
        assertThat(jar).as("the plugin jar built by mvn package").isRegularFile();
    }

    @Test
    void jar_hasOpenfirePluginLayout() throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            for (String required : List.of("plugin.xml", "readme.html", "changelog.html", "logo_small.png",
                    "logo_large.png", "i18n/mucscale_i18n.properties", "web/WEB-INF/web.xml")) {
                assertThat(f.getEntry(required)).as(required).isNotNull();
            }
            List<String> libs = entries(f, "lib/");
            assertThat(libs).anySatisfy(l -> assertThat(l).startsWith("lib/mucscale-core-"));
            String own = libs.stream().filter(l -> l.matches("lib/mucscale-\\d.*\\.jar")).findFirst().orElse(null);
            assertThat(own).as("the plugin's own classes jar in lib/").isNotNull();
            assertThat(jarEntries(f, own)).contains("org/mucscale/openfire/MucScalePlugin.class");
            assertThat(f.getEntry("logo_small.png").getSize()).isPositive();
        }
    }

    @Test
    void pluginXml_declaresClassNameVersionsAndAdminPage() throws Exception {
        Document doc;
        try (JarFile f = new JarFile(jar.toFile()); InputStream in = f.getInputStream(f.getEntry("plugin.xml"))) {
            doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
        XPath x = XPathFactory.newInstance().newXPath();
        assertThat(x.evaluate("/plugin/class", doc)).isEqualTo(MucScalePlugin.class.getName());
        assertThat(x.evaluate("/plugin/name", doc)).isEqualTo(MucScaleProperties.PLUGIN_NAME);
        assertThat(x.evaluate("/plugin/version", doc)).isNotBlank().doesNotContain("${");
        assertThat(x.evaluate("/plugin/minServerVersion", doc)).isEqualTo("5.1.0");
        assertThat(x.evaluate("/plugin/minJavaVersion", doc)).isEqualTo("17");
        assertThat(x.evaluate("/plugin/csrfProtectionEnabled", doc)).isEqualTo("true");
        assertThat(x.evaluate("/plugin/databaseKey", doc)).isEqualTo("mucscale");
        assertThat(x.evaluate("/plugin/databaseVersion", doc)).isEqualTo(String.valueOf(org.mucscale.engine.store.SchemaInstaller.LATEST_VERSION));
        assertThat(x.evaluate("/plugin/adminconsole/tab[@id='tab-groupchat']//item/@url", doc))
                .isEqualTo("mucscale-dashboard.jsp");
    }

    @Test
    void jar_bundlesNothingOpenfireShips() throws IOException {
        List<String> offending = new ArrayList<>();
        try (JarFile f = new JarFile(jar.toFile())) {
            for (String lib : entries(f, "lib/")) {
                String name = lib.substring("lib/".length()).toLowerCase(java.util.Locale.ROOT);
                for (String prefix : FORBIDDEN_JARS) {
                    if (name.startsWith(prefix)) {
                        offending.add(lib);
                    }
                }
                for (String entry : jarEntries(f, lib)) {
                    for (String pkg : FORBIDDEN_PACKAGES) {
                        if (entry.startsWith(pkg)) {
                            offending.add(lib + "!" + entry);
                        }
                    }
                }
            }
            for (String e : entries(f, "")) {
                for (String pkg : FORBIDDEN_PACKAGES) {
                    if (e.startsWith(pkg) || e.startsWith("classes/" + pkg)) {
                        offending.add(e);
                    }
                }
            }
        }
        assertThat(offending).isEmpty();
    }

    @Test
    void databaseScripts_areNamedForOpenfireSchemaManager() throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            for (String e : entries(f, "database/")) {
                if (e.endsWith(".sql")) {
                    String file = e.substring(e.lastIndexOf('/') + 1);
                    assertThat(file).matches("mucscale_(oracle|postgresql|cockroachdb|mysql|mariadb|hsqldb|db2"
                            + "|firebird|sqlserver|interbase)\\.sql");
                }
            }
        }
        Path root = Path.of(System.getProperty("mucscale.i18n.dir", "src/main/i18n")).getParent().getParent()
                .getParent().resolve("database");
        if (Files.isDirectory(root)) {
            // Install scripts and every upgrade/N/ script: Openfire's SchemaManager reads both from the jar.
            try (JarFile f = new JarFile(jar.toFile()); var files = Files.walk(root)) {
                for (Path p : files.filter(p -> p.toString().endsWith(".sql")).toList()) {
                    String entry = "database/" + root.relativize(p).toString().replace('\\', '/');
                    assertThat(f.getEntry(entry)).as(p.toString()).isNotNull();
                }
            }
        }
    }

    static List<String> entries(JarFile f, String prefix) {
        List<String> out = new ArrayList<>();
        Enumeration<JarEntry> e = f.entries();
        while (e.hasMoreElements()) {
            JarEntry je = e.nextElement();
            if (!je.isDirectory() && je.getName().startsWith(prefix)) {
                out.add(je.getName());
            }
        }
        return out;
    }

    static List<String> jarEntries(JarFile f, String nested) throws IOException {
        List<String> out = new ArrayList<>();
        byte[] bytes;
        try (InputStream in = f.getInputStream(f.getEntry(nested))) {
            bytes = in.readAllBytes();
        }
        try (JarInputStream jin = new JarInputStream(new ByteArrayInputStream(bytes))) {
            JarEntry e;
            while ((e = jin.getNextJarEntry()) != null) {
                out.add(e.getName());
            }
        }
        return out;
    }
}
