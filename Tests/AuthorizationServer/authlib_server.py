"""An OAuth 2.0 authorization server on 127.0.0.1 made with Authlib, for the access-token tests.

Authlib issues every token: RFC 9068 access tokens by its JWTBearerTokenGenerator (client
credentials grant, `typ` at+jwt), and OpenID Connect ID tokens by its implicit grant (the
contrast: an ID token the access-token profile must refuse). The HTTP side is the standard
library's; keys are joserfc's (one RSA and one P-256 key, each with its kid).

    python authlib_server.py [--resource URL] [--other-resource URL]

Prints its port once it listens, then serves until stdin closes or SIGTERM:
  GET  /.well-known/openid-configuration, /.well-known/oauth-authorization-server
  GET  /jwks                  the public keys
  POST /token                 grant_type=client_credentials [&scope=...], HTTP Basic client auth
  GET  /authorize             response_type=id_token, scope=openid, nonce, redirect_uri: a 302 whose
                              fragment holds the ID token (the end user is granted at once)

Clients (secret = client_id + "-secret"): rs-client (RS256), es-client (ES256), both for
--resource; other-client (RS256) for --other-resource; web-client (implicit, ID tokens, RS256).
"""

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from authlib.oauth2 import AuthorizationServer, OAuth2Request
from authlib.oauth2.rfc6749 import ClientMixin, OAuth2Error
from authlib.oauth2.rfc6749.grants import ClientCredentialsGrant
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload, JsonRequest
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDImplicitGrant
from authlib.oidc.discovery import OpenIDProviderMetadata
from joserfc.jwk import ECKey, KeySet, RSAKey

SCOPES = ["read", "write", "admin"]
CALLBACK = "http://127.0.0.1/callback"


class Client(ClientMixin):
    """A registered client: its id, secret, grant, signing algorithm and audience."""

    def __init__(self, client_id, grant_type, alg, audience):
        self.client_id = client_id
        self.client_secret = client_id + "-secret"
        self.grant_type = grant_type
        self.alg = alg
        self.audience = audience
        self.id_token_signed_response_alg = alg

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return CALLBACK

    def get_allowed_scope(self, scope):
        # No scope asked: the token is issued with none (an empty scope).
        return " ".join(s for s in (scope or "").split() if s in SCOPES + ["openid"])

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri == CALLBACK

    def check_client_secret(self, client_secret):
        return client_secret == self.client_secret

    def check_endpoint_auth_method(self, method, endpoint):
        # The confidential clients authenticate with HTTP Basic; web-client is public (implicit).
        return method == ("none" if self.grant_type == "implicit" else "client_secret_basic")

    def check_response_type(self, response_type):
        return self.grant_type == "implicit" and response_type == "id_token"

    def check_grant_type(self, grant_type):
        return grant_type == self.grant_type


class User:
    def get_user_id(self):
        return "user-5"


class AccessTokens(JWTBearerTokenGenerator):
    """Authlib's RFC 9068 generator, signing with the server's keys (joserfc picks the key of `alg`)."""

    def __init__(self, issuer, keys, alg):
        super().__init__(issuer=issuer, alg=alg)
        self.keys = keys

    def get_jwks(self):
        return self.keys

    def get_audiences(self, client, user, scope):
        return client.audience


class IDTokens(OpenIDImplicitGrant):
    """Authlib's OpenID Connect implicit grant: `response_type=id_token` answers an ID token."""

    keys = None
    issuer = None

    def exists_nonce(self, nonce, request):
        return False

    def resolve_client_private_key(self, client):
        return self.keys

    def get_client_claims(self, client):
        return {"iss": self.issuer, "aud": [client.audience]}

    def generate_user_info(self, user, scope):
        return UserInfo(sub=user.get_user_id(), name="Test User")


class Server(AuthorizationServer):
    """Authlib's authorization server on the standard library's requests."""

    def __init__(self, clients):
        super().__init__(scopes_supported=SCOPES + ["openid"])
        self.clients = clients

    def query_client(self, client_id):
        return self.clients.get(client_id)

    def save_token(self, token, request):
        pass

    def send_signal(self, name, *args, **kwargs):
        pass

    def create_oauth2_request(self, request):
        oauth = OAuth2Request(request["method"], request["uri"], headers=request["headers"])
        oauth.payload = BasicOAuth2Payload(request["data"])
        return oauth

    def create_json_request(self, request):
        return JsonRequest(request["method"], request["uri"], request["headers"])

    def handle_response(self, status, body, headers):
        if isinstance(body, dict):
            body = json.dumps(body)
        return status, body, headers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resource", default="https://api.example.com")
    parser.add_argument("--other-resource", default="https://other.example.com")
    options = parser.parse_args()

    keys = KeySet(
        [
            RSAKey.generate_key(2048, parameters={"kid": "authlib-rs256", "alg": "RS256", "use": "sig"}),
            ECKey.generate_key("P-256", parameters={"kid": "authlib-es256", "alg": "ES256", "use": "sig"}),
        ]
    )
    http = ThreadingHTTPServer(("127.0.0.1", 0), None)
    issuer = f"http://127.0.0.1:{http.server_address[1]}"

    clients = {
        "rs-client": Client("rs-client", "client_credentials", "RS256", options.resource),
        "es-client": Client("es-client", "client_credentials", "ES256", options.resource),
        "other-client": Client("other-client", "client_credentials", "RS256", options.other_resource),
        "web-client": Client("web-client", "implicit", "RS256", options.resource),
    }
    server = Server(clients)
    generators = {alg: AccessTokens(issuer, keys, alg) for alg in ("RS256", "ES256")}

    def generate(grant_type, client, user=None, scope=None, expires_in=None, include_refresh_token=True):
        return generators[client.alg](
            grant_type=grant_type, client=client, user=user, scope=scope, expires_in=expires_in,
            include_refresh_token=include_refresh_token,
        )

    server.register_token_generator("default", generate)
    server.register_grant(ClientCredentialsGrant)
    IDTokens.keys, IDTokens.issuer = keys, issuer
    server.register_grant(IDTokens)

    common = {
        "issuer": issuer,
        "jwks_uri": issuer + "/jwks",
        "token_endpoint": issuer + "/token",
        "authorization_endpoint": issuer + "/authorize",
        "scopes_supported": SCOPES + ["openid"],
        "response_types_supported": ["id_token"],
        "grant_types_supported": ["client_credentials", "implicit"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
    }
    oauth_metadata = AuthorizationServerMetadata(common)
    oauth_metadata.validate()
    openid_metadata = OpenIDProviderMetadata(
        dict(common, subject_types_supported=["public"], id_token_signing_alg_values_supported=["RS256", "ES256"])
    )
    openid_metadata.validate()
    documents = {
        "/.well-known/oauth-authorization-server": dict(oauth_metadata),
        "/.well-known/openid-configuration": dict(openid_metadata),
        "/jwks": keys.as_dict(private=False),
    }

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body, headers=()):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def authlib(self, data, endpoint):
            request = {"method": self.command, "uri": issuer + self.path, "headers": dict(self.headers), "data": data}
            if endpoint == "token":
                status, body, headers = server.create_token_response(request)
            else:
                try:
                    grant = server.get_consent_grant(request, end_user=User())
                except OAuth2Error as error:
                    status, body, headers = server.handle_error_response(None, error)
                else:
                    status, body, headers = server.create_authorization_response(
                        grant.request, grant_user=User(), grant=grant
                    )
            self.answer(status, body or "", headers)

        def do_GET(self):
            path = urlsplit(self.path)
            if path.path in documents:
                self.answer(200, json.dumps(documents[path.path]), [("Content-Type", "application/json")])
            elif path.path == "/authorize":
                self.authlib(dict(parse_qsl(path.query)), "authorize")
            else:
                self.answer(404, "")

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            if urlsplit(self.path).path == "/token":
                self.authlib(dict(parse_qsl(body)), "token")
            else:
                self.answer(404, "")

    http.RequestHandlerClass = Handler
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))

    def watch_stdin():
        # The test holds stdin open: when it closes it (or dies), this server ends too.
        while sys.stdin.buffer.read(4096):
            pass
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(http.server_address[1], flush=True)
    http.serve_forever()


if __name__ == "__main__":
    main()
