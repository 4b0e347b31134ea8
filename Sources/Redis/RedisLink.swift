/// One open connection to the server: its socket and the RESP reader that decodes what it reads.
/// Both live and die together; a new connect makes a new link.
struct RedisLink {
    let socket: RedisSocket
    let reader = RESPReader()
}
