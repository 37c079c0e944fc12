// Reserved for the command line; see README.md.
export {};
