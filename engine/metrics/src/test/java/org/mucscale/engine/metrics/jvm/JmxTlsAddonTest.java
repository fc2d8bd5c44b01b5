package org.mucscale.engine.metrics.jvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote-JMX add-on ({@code jvm-tuning/addons/jmx-tls.jvmopts} and its {@code jmx/} files) on the real JDKs: a JVM
 * started with it accepts the right password over TLS and refuses a wrong password and a connection without TLS.
 */
class JmxTlsAddonTest {

    private static final String STORE_PASSWORD = "store-secret-1";
    private static final String JMX_PASSWORD = "monitor-secret-1";

    @TempDir
    Path dir;

    @Test
    void addon_passwordAndTls_required_onEachJdk() throws Exception {
        Path addons = JvmPresetFormsTest.TUNING.resolve("addons");
        List<String> addon = JvmFlagCheckCli.argfileWords(Files.readString(addons.resolve("jmx-tls.jvmopts")));
        assertThat(addon).singleElement().asString().startsWith("-Dcom.sun.management.config.file=");
        assertThat(JvmFlagCheck.check(addon, 17, 0, null, 0).count(JvmFlagCheck.Severity.WARN)).isZero();

        Path keystore = dir.resolve("jmx-keystore.p12");
        Path keytool = JvmFlagRulesJdkTest.javaFor(17).resolveSibling("keytool");
        Process kt = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "jmx", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", STORE_PASSWORD, "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1")
                .redirectErrorStream(true).start();
        String ktOut = new String(kt.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(kt.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(kt.exitValue()).as(ktOut).isZero();

        // The add-on's files with /etc/openfire/jmx/ replaced by the temp folder, a free port, and the secrets.
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String management = Files.readString(addons.resolve("jmx/management.properties"))
                .replace("/etc/openfire/jmx/", dir + "/").replace("=9010", "=" + port);
        Files.writeString(dir.resolve("management.properties"), management);
        Files.writeString(dir.resolve("jmxremote-ssl.properties"), Files.readString(addons.resolve(
                "jmx/jmxremote-ssl.properties")).replace("/etc/openfire/jmx/", dir + "/").replace("CHANGE-ME",
                STORE_PASSWORD));
        // The JVM refuses to start when the TLS or password file is readable by others (the add-on says chmod 600).
        Files.setPosixFilePermissions(dir.resolve("jmxremote-ssl.properties"),
                PosixFilePermissions.fromString("rw-------"));
        Files.copy(addons.resolve("jmx/jmxremote.access"), dir.resolve("jmxremote.access"));
        Path password = dir.resolve("jmxremote.password");
        Files.writeString(password, "monitor " + JMX_PASSWORD + "\n");
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
        String option = addon.get(0).replace("/etc/openfire/jmx/", dir + "/");

        SSLContext trusting = trustingOnly(keystore);
        SSLContext before = SSLContext.getDefault();
        SSLContext.setDefault(trusting); // SslRMIClientSocketFactory uses the default context
        try {
            for (int jdk : JvmFlagRulesJdkTest.jdks().keySet()) {
                Process server = startWaiting(JvmFlagRulesJdkTest.jdks().get(jdk), option);
                try {
                    JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
                    try (JMXConnector c = JMXConnectorFactory.connect(url, tls("monitor", JMX_PASSWORD))) {
                        MBeanServerConnection mbeans = c.getMBeanServerConnection();
                        Object spec = mbeans.getAttribute(new ObjectName("java.lang:type=Runtime"), "SpecVersion");
                        assertThat(spec.toString()).as("JDK " + jdk).isEqualTo(Integer.toString(jdk));
                    }
                    assertThatThrownBy(() -> JMXConnectorFactory.connect(url, tls("monitor", "wrong")).close())
                            .as("wrong password, JDK " + jdk).isInstanceOf(SecurityException.class);
                    Map<String, Object> plain = new HashMap<>();
                    plain.put(JMXConnector.CREDENTIALS, new String[] {"monitor", JMX_PASSWORD});
                    assertThatThrownBy(() -> JMXConnectorFactory.connect(url, plain).close())
                            .as("no TLS, JDK " + jdk).isInstanceOf(Exception.class);
                } finally {
                    server.getOutputStream().close();
                    if (!server.waitFor(20, TimeUnit.SECONDS)) {
                        server.destroyForcibly();
                    }
                }
            }
        } finally {
            SSLContext.setDefault(before);
        }
    }

    private static Map<String, Object> tls(String user, String pw) {
        Map<String, Object> env = new HashMap<>();
        env.put(JMXConnector.CREDENTIALS, new String[] {user, pw});
        env.put("com.sun.jndi.rmi.factory.socket", new SslRMIClientSocketFactory());
        return env;
    }

    private static SSLContext trustingOnly(Path keystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            ks.load(in, STORE_PASSWORD.toCharArray());
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("jmx", ks.getCertificate("jmx"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static Process startWaiting(Path java, String option) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java.toString(), option, "-cp",
                System.getProperty("java.class.path"), WaitForStdin.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = r.readLine()) != null && !line.equals("ready")) {
            seen.append(line).append('\n');
        }
        assertThat(line).as(java + " with the JMX add-on did not start:\n" + seen).isEqualTo("ready");
        return p;
    }
}
