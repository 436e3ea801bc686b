/*
 * emu_main.h - the host side of one emulated run (included last by the C++
 * file run.py generates, after the kernels and their table emu_kernels[]).
 *
 *   BIN PLAN_FILE
 *
 * PLAN_FILE is text written by run.py:
 *   buffers N
 *   NAME ELEM_BYTES COUNT MODE PATH     MODE: file (PATH holds the bytes), poison (0xFF), zero
 *   launches L
 *   KERNEL GX GY GZ BX BY BZ SMEM NARGS ARG...   ARG: b:INDEX, i:INT, f:REAL
 *   out PATH
 * Every buffer gets 4 KiB guard bands of 0xA5 on both sides and a 256-byte
 * aligned base. After the launches, PATH receives for each buffer: one byte
 * (0 guards intact, 1 the guard before was written, 2 the guard after), then
 * the buffer's bytes. Emulator errors print "RE: ..." and exit 3.
 */
#include <fstream>
#include <sstream>
#include <string>

struct emu_buffer {
    std::string name;
    size_t elem = 0, count = 0;
    std::vector<unsigned char> raw;
    unsigned char *p = nullptr;
};

constexpr size_t emu_guard = 4096;

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s PLAN\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    std::string word, out_path;
    size_t nbuf = 0, nlaunch = 0;
    in >> word >> nbuf;
    std::vector<emu_buffer> bufs(nbuf);
    for (auto &b : bufs) {
        std::string mode, path;
        in >> b.name >> b.elem >> b.count >> mode >> path;
        size_t bytes = b.elem * b.count;
        b.raw.assign(bytes + 2 * emu_guard + 512, 0xA5);
        uintptr_t base =
            (reinterpret_cast<uintptr_t>(b.raw.data()) + emu_guard + 255) & ~uintptr_t(255);
        b.p = reinterpret_cast<unsigned char *>(base);
        if (mode == "file") {
            std::ifstream f(path, std::ios::binary);
            f.read(reinterpret_cast<char *>(b.p), (std::streamsize)bytes);
            if ((size_t)f.gcount() != bytes) {
                std::printf("JE: short input file %s\n", path.c_str());
                return 2;
            }
        } else if (mode == "poison") {
            std::memset(b.p, 0xFF, bytes);
        } else {
            std::memset(b.p, 0, bytes);
        }
    }
    in >> word >> nlaunch;
    struct launch {
        std::string kernel;
        dim3 grid, block;
        size_t smem;
        std::vector<emu_arg> args;
    };
    std::vector<launch> launches(nlaunch);
    for (auto &l : launches) {
        size_t nargs;
        in >> l.kernel >> l.grid.x >> l.grid.y >> l.grid.z >> l.block.x >> l.block.y >> l.block.z >>
            l.smem >> nargs;
        for (size_t a = 0; a < nargs; a++) {
            std::string tok;
            in >> tok;
            emu_arg arg;
            if (tok.rfind("b:", 0) == 0)
                arg.ptr = bufs.at(std::stoul(tok.substr(2))).p;
            else if (tok.rfind("i:", 0) == 0)
                arg.i = std::stoll(tok.substr(2)), arg.f = (double)arg.i;
            else
                arg.f = std::stod(tok.substr(2)), arg.i = (long long)arg.f;
            l.args.push_back(arg);
        }
    }
    in >> word >> out_path;

    for (auto &l : launches) {
        const auto *k = &emu_kernels[0];
        bool found = false;
        for (const auto &e : emu_kernels)
            if (l.kernel == e.name) {
                k = &e;
                found = true;
            }
        if (!found) {
            std::printf("JE: no kernel %s\n", l.kernel.c_str());
            return 2;
        }
        if (k->arity != (int)l.args.size()) {
            std::printf("JE: kernel %s takes %d arguments, the plan passes %zu\n", k->name,
                        k->arity, l.args.size());
            return 2;
        }
        std::function<void()> body = [&] { k->run(l.args); };
        emu_launch(l.grid, l.block, l.smem, body);
    }

    std::ofstream out(out_path, std::ios::binary);
    for (auto &b : bufs) {
        unsigned char status = 0;
        for (size_t i = 0; i < emu_guard && !status; i++)
            if (b.p[-(long)emu_guard + (long)i] != 0xA5)
                status = 1;
        for (size_t i = 0; i < emu_guard && !status; i++)
            if (b.p[b.elem * b.count + i] != 0xA5)
                status = 2;
        out.write(reinterpret_cast<const char *>(&status), 1);
        out.write(reinterpret_cast<const char *>(b.p), (std::streamsize)(b.elem * b.count));
    }
    return 0;
}
