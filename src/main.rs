fn main() {
    std::process::exit(tusk::cli::run());
}
