this is not a key
AuthKey downloaded wrong
