#!/usr/bin/env python3
"""Prints SQL (MySQL/MariaDB) that creates Openfire 5.1 accounts as rows of ofUser, for bench/e2e/openfire.sh.

    openfire_accounts.py PREFIX FIRST COUNT PASSWORD [ITERATIONS]    # ITERATIONS: default 4096, Openfire's

Accounts PREFIX<FIRST> .. PREFIX<FIRST+COUNT-1>, all with PASSWORD, stored the way Openfire 5.1.1's
DefaultAuthProvider.setPassword stores a password when user.scramHashedPasswordOnly is true (autosetup sets it):
no plainPassword or encryptedPassword, and SCRAM-SHA-1 credentials instead, base64 salt, iteration count,
storedKey = SHA1(HMAC(saltedPassword, "Client Key")) and serverKey = HMAC(saltedPassword, "Server Key") with
saltedPassword = PBKDF2-HMAC-SHA1(password, salt, iterations). DefaultAuthProvider.checkPassword (SASL PLAIN) then
derives the salted password again and compares storedKey; SCRAM-SHA-1 uses the same columns. One salt for all
(they share the password; computing PBKDF2 once keeps 26,000 accounts at a second). creationDate and
modificationDate are zero-padded milliseconds, as Openfire's StringUtils.dateToMillis writes them.
"""
import base64
import hashlib
import hmac
import os
import sys
import time


def credentials(password, iterations, salt):
    salted = hashlib.pbkdf2_hmac("sha1", password.encode("utf-8"), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha1).digest()
    stored_key = hashlib.sha1(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha1).digest()
    b64 = lambda b: base64.b64encode(b).decode("ascii")
    return b64(salt), b64(stored_key), b64(server_key)


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    prefix, first, count, password = argv[0], int(argv[1]), int(argv[2]), argv[3]
    iterations = int(argv[4]) if len(argv) == 5 else 4096
    if not prefix.replace("-", "").replace("_", "").isalnum() or prefix.lower() != prefix:
        sys.exit("prefix must be lower-case letters, digits, '-' or '_'")
    if first < 0 or count < 1 or iterations < 1:
        sys.exit("first >= 0, count >= 1, iterations >= 1")
    salt, stored, server = credentials(password, iterations, os.urandom(24))  # DefaultAuthProvider.SALT_LENGTH
    now = "%015d" % int(time.time() * 1000)
    out = sys.stdout
    batch = 1000
    for start in range(first, first + count, batch):
        end = min(start + batch, first + count)
        rows = ",".join(
            "('%s%d','%s','%s','%s',%d,NULL,NULL,NULL,NULL,'%s','%s')"
            % (prefix, i, stored, server, salt, iterations, now, now)
            for i in range(start, end))
        out.write("INSERT INTO ofUser (username, storedKey, serverKey, salt, iterations, plainPassword,"
                  " encryptedPassword, name, email, creationDate, modificationDate) VALUES " + rows + ";\n")


if __name__ == "__main__":
    main(sys.argv[1:])
