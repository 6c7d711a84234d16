// API keys (hashed at rest): looked up by their public id.
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.keyId IS UNIQUE;
