package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/** The room configuration as one value: a submitted form makes a new value, storage round-trips it. */
class RoomSettingsTest {
    private static final Jid ROOM = Jid.parse("r@muc.example.org");
    private static final MucConfig CONFIG = MucConfig.defaults();

    private static XmlElement form(String... varValues) {
        XmlElement.Builder x = XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "submit");
        for (int i = 0; i < varValues.length; i += 2) {
            x.child(XmlElement.builder("field").attribute("var", varValues[i])
                    .child(XmlElement.builder("value").text(varValues[i + 1]).build()).build());
        }
        return x.build();
    }

    @Test
    void applyTo_changesOnlyTheSubmittedFields_andLeavesTheOldValueAsItWas() {
        RoomSettings before = RoomSettings.defaults(ROOM, CONFIG);
        RoomSettings after = RoomConfigForm.parse(form("muc#roomconfig_roomname", "Lobby",
                "muc#roomconfig_allowpm", "moderators", "muc#roomconfig_membersonly", "1"), CONFIG).applyTo(before);

        assertThat(after.name()).isEqualTo("Lobby");
        assertThat(after.allowPrivateMessages()).isEqualTo(PrivateMessagePolicy.MODERATORS);
        assertThat(after.membersOnly()).isTrue();
        assertThat(after.toBuilder().build()).isEqualTo(after);
        assertThat(before).isEqualTo(RoomSettings.defaults(ROOM, CONFIG));
        assertThat(before.allowPrivateMessages()).isEqualTo(PrivateMessagePolicy.ANYONE);
        assertThat(after).isNotEqualTo(before);
        assertThat(after.persistent()).isEqualTo(before.persistent());
    }

    @Test
    void parse_unknownPrivateMessagePolicy_isRefusedNamingTheField() {
        assertThatThrownBy(() -> RoomConfigForm.parse(form("muc#roomconfig_allowpm", "everyone"), CONFIG))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("muc#roomconfig_allowpm").hasMessageContaining("everyone");
    }

    @Test
    void storedAndBack_keepsEveryField() {
        RoomSettings s = RoomConfigForm.parse(form("muc#roomconfig_roomname", "n", "muc#roomconfig_roomdesc", "d",
                "muc#roomconfig_publicroom", "0", "muc#roomconfig_moderatedroom", "1",
                "muc#roomconfig_membersonly", "1", "muc#roomconfig_roomsecret", "pw",
                "muc#roomconfig_passwordprotectedroom", "1", "muc#roomconfig_maxusers", "42",
                "muc#roomconfig_whois", "anyone", "muc#roomconfig_changesubject", "1",
                "muc#roomconfig_allowpm", "participants", "muc#roomconfig_enablelogging", "1",
                "muc#roomconfig_enablearchiving", "1", "muc#roomconfig_getmemberlist", "visitor",
                Registration.FIELD_OPEN, "1", Room.FIELD_PRESENCE_POLICY, "moderators_only"), CONFIG)
                .applyTo(RoomSettings.defaults(ROOM, CONFIG));
        StoredRoom stored = s.toStored(ROOM, "subject", Map.of(), Map.of());

        assertThat(stored.allowPrivateMessages()).isEqualTo("participants");
        assertThat(RoomSettings.fromStored(stored, s.persistent(), s.presenceBroadcastRoles(), CONFIG)).isEqualTo(s);
    }

    @Test
    void fromStored_absentPolicyIsAnyone_unknownAllowsNobody_absentArchivingFollowsTheDefault() {
        StoredRoom old = new StoredRoom(ROOM, "n", null, null, true, false, false, null, 10, false, false, null, false,
                PresencePolicy.FULL, Map.of());
        RoomSettings s = RoomSettings.fromStored(old, true, RoomSettings.ALL_ROLES, CONFIG);
        assertThat(s.allowPrivateMessages()).isEqualTo(PrivateMessagePolicy.ANYONE);
        assertThat(s.description()).isEmpty();
        assertThat(s.archivingEnabled()).isEqualTo(CONFIG.archiveByDefault);
        assertThat(PrivateMessagePolicy.fromStored("nobody")).isEqualTo(PrivateMessagePolicy.NONE);
        for (PrivateMessagePolicy p : PrivateMessagePolicy.values()) {
            assertThat(PrivateMessagePolicy.fromStored(p.xmlName())).isEqualTo(p);
        }
    }

    @Test
    void roleSets_keepDeclarationOrder_andCannotBeChangedThroughTheValue() {
        RoomSettings s = RoomSettings.defaults(ROOM, CONFIG).toBuilder().build();
        RoomSettings.Builder b = s.toBuilder();
        b.memberListRoles = EnumSet.of(Role.VISITOR, Role.MODERATOR);
        RoomSettings changed = b.build();
        b.memberListRoles.add(Role.PARTICIPANT); // the builder's set, not the value's
        assertThat(changed.memberListRoles()).containsExactly(Role.VISITOR, Role.MODERATOR);
        assertThatThrownBy(() -> changed.memberListRoles().add(Role.PARTICIPANT))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
