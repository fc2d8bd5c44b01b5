package org.mucscale.engine.runtime;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.XmlElement;

/** Settings and stanzas the runtime tests share. */
final class EngineFixture {
    static final String SERVICE = "muc.example.org";

    private EngineFixture() {
    }

    /** Engine settings for tests: no JMX (one registry per JVM name), metrics HTTP on an ephemeral port. */
    static Settings settings(Path spillDir, String... keyValues) {
        Map<String, String> text = new HashMap<>();
        text.put("mucscale.metrics.jmx-enabled", "false");
        text.put("mucscale.metrics.http-port", "0");
        text.put("mucscale.store.spill-directory", spillDir.toString());
        text.put("mucscale.store.max-batch-age", "20");
        for (int i = 0; i < keyValues.length; i += 2) {
            text.put(keyValues[i], keyValues[i + 1]);
        }
        return Settings.fromText(MucScaleSettings.catalog(), text);
    }

    static XmlElement join(String user, String room, String nick) {
        return XmlElement.builder("presence").attribute("from", user).attribute("to", room + "@" + SERVICE + "/" + nick)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();
    }

    static XmlElement instantRoom(String owner, String room) {
        return XmlElement.builder("iq").attribute("type", "set").attribute("id", "cfg").attribute("from", owner)
                .attribute("to", room + "@" + SERVICE)
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                        .child(XmlElement.builder("x", "jabber:x:data").attribute("type", "submit").build()).build())
                .build();
    }

    static XmlElement groupchat(String user, String room, String body) {
        return XmlElement.builder("message").attribute("type", "groupchat").attribute("from", user)
                .attribute("to", room + "@" + SERVICE).textChild("body", body).build();
    }
}
