package org.mucscale.openfire;

import java.net.InetAddress;
import org.jivesoftware.admin.LoginLimitManager;
import org.jivesoftware.openfire.admin.AdminManager;
import org.jivesoftware.openfire.auth.AuthFactory;
import org.jivesoftware.openfire.auth.ConnectionException;
import org.jivesoftware.openfire.auth.InternalUnauthenticatedException;
import org.jivesoftware.openfire.auth.UnauthorizedException;
import org.mucscale.engine.runtime.admin.AdminApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the HTTP Basic credentials of a room-administration API call against Openfire's own accounts, as its admin
 * console login does: the console's login limits first (an address or user name locked out after failed attempts is
 * refused without a password check, and every failure counts towards that lock-out and is in Openfire's security
 * audit log), then Openfire's auth provider, then its list of administrators. Stateless; called on the HTTP thread.
 */
final class OpenfireAdminLogin implements AdminApi.HostLogin {

    private static final Logger LOG = LoggerFactory.getLogger(OpenfireAdminLogin.class);

    @Override
    public AdminApi.LoginOutcome check(String user, String password, InetAddress remote) {
        String address = remote == null ? "" : remote.getHostAddress();
        LoginLimitManager limits = LoginLimitManager.getInstance();
        if (limits.hasHitConnectionLimit(user, address)) {
            LOG.info("MUC Scale room administration: {} from {} refused, Openfire's admin login limit is reached",
                    user, address);
            return AdminApi.LoginOutcome.FAILED;
        }
        try {
            AuthFactory.authenticate(user, password);
        } catch (UnauthorizedException e) {
            limits.recordFailedAttempt(user, address);
            return AdminApi.LoginOutcome.FAILED;
        } catch (ConnectionException | InternalUnauthenticatedException e) {
            LOG.warn("MUC Scale room administration: Openfire could not check the credentials of {}: {}", user,
                    e.toString());
            return AdminApi.LoginOutcome.FAILED;
        } catch (RuntimeException e) {
            // a user name the provider cannot take (e.g. not a valid node) is a failed login, not a 500
            limits.recordFailedAttempt(user, address);
            return AdminApi.LoginOutcome.FAILED;
        }
        if (!AdminManager.getInstance().isUserAdmin(user, true)) { // as the console login: "admin" when the list is empty
            return AdminApi.LoginOutcome.NOT_ADMIN;
        }
        limits.recordSuccessfulAttempt(user, address);
        return AdminApi.LoginOutcome.ADMIN;
    }
}
