from pan_bot.client import main

if __name__ == "__main__":
    main()
